// Transpiles src/ and test/ to out/ file by file (no bundling, no type check:
// `npm run lint` type-checks). Tests run from out/ with mocha.
import { build } from 'esbuild';
import { readdirSync, statSync, rmSync } from 'node:fs';
import { join } from 'node:path';

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

rmSync('out', { recursive: true, force: true });
await build({
  entryPoints: [...walk('src'), ...walk('test')],
  outdir: 'out',
  outbase: '.',
  bundle: false,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  sourcemap: 'inline',
  logLevel: 'warning',
});
