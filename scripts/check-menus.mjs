// Checks the menus declared in package.json against the commands (run by `npm run lint`):
// every command named in a menu is contributed, every contributed command is registered
// in src/ui/commands, a command that only works on a clicked tree item (its handler takes
// a tree node and cannot ask) is hidden from the palette with "when": "false", and a
// command hidden from the palette is reachable from some menu or tree item.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
const { commands, menus } = manifest.contributes;
const contributed = new Set(commands.map((c) => c.command));
const problems = [];

for (const [menu, entries] of Object.entries(menus)) {
  for (const entry of entries) {
    if (entry.command && !contributed.has(entry.command)) problems.push(`menu ${menu} names ${entry.command}, which is not in contributes.commands`);
  }
}

const hidden = new Set((menus.commandPalette ?? []).filter((e) => e.when === 'false').map((e) => e.command));
const inMenus = new Set(
  Object.entries(menus)
    .filter(([menu]) => menu !== 'commandPalette')
    .flatMap(([, entries]) => entries.map((e) => e.command)),
);

const dir = join('src', 'ui', 'commands');
const registered = new Map();
for (const name of readdirSync(dir)) {
  const text = readFileSync(join(dir, name), 'utf8');
  for (const m of text.matchAll(/registerCommand\(\s*s,\s*'(paddock\.[A-Za-z]+)'/g)) registered.set(m[1], text);
}
const treeText = readdirSync(join('src', 'ui', 'tree')).map((n) => readFileSync(join('src', 'ui', 'tree', n), 'utf8')).join('\n');

for (const id of contributed) {
  const source = registered.get(id);
  if (!source) {
    problems.push(`${id} is contributed but no file in src/ui/commands registers it`);
    continue;
  }
  const itemOnly = /instanceof (FileNode|EvidenceNode|RepoNode|UnreadableNode|MessageNode)\b/.test(source) && !source.includes('targetJobs(');
  if (itemOnly && !hidden.has(id)) problems.push(`${id} works only on a clicked tree item: hide it from the palette ({"command": "${id}", "when": "false"} in menus.commandPalette)`);
  if (hidden.has(id) && !inMenus.has(id) && !treeText.includes(`command: '${id}'`)) problems.push(`${id} is hidden from the palette and in no menu or tree item: nothing can run it`);
}

if (problems.length) {
  for (const p of problems) console.error(`[menus] ${p}`);
  process.exit(1);
}
console.log(`[menus] ${contributed.size} commands, ${Object.values(menus).flat().length} menu entries, consistent`);
