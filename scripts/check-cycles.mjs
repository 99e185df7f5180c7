// Fails when the bundles' import graph (from esbuild's metafile) has a cycle
// among the project's own modules, or when src/core reaches src/ui / src/cli.
import { readFileSync } from 'node:fs';

const meta = JSON.parse(readFileSync('dist/meta.json', 'utf8'));
const graph = new Map();
for (const [file, info] of Object.entries(meta.inputs)) {
  if (!file.startsWith('src/')) continue;
  graph.set(file, info.imports.map((i) => i.path).filter((p) => p.startsWith('src/')));
}
const problems = [];
for (const [file, deps] of graph) {
  if (file.startsWith('src/core/')) {
    for (const d of deps) if (!d.startsWith('src/core/')) problems.push(`${file} imports ${d}: core must not depend on adapters`);
  }
}
const state = new Map();
const stack = [];
function visit(node) {
  state.set(node, 'visiting');
  stack.push(node);
  for (const dep of graph.get(node) ?? []) {
    if (state.get(dep) === 'visiting') problems.push(`import cycle: ${[...stack.slice(stack.indexOf(dep)), dep].join(' → ')}`);
    else if (!state.has(dep)) visit(dep);
  }
  stack.pop();
  state.set(node, 'done');
}
for (const node of graph.keys()) if (!state.has(node)) visit(node);
if (problems.length) {
  for (const p of problems) console.error(p);
  process.exit(1);
}
console.log(`[deps] ${graph.size} modules, no cycles, core depends on core only`);
