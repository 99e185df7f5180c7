// Runs the unit suites (out/test/unit/**) with mocha's spec reporter and writes
// the counts to test-results/unit-summary.json for the closing summary line.
import { createRequire } from 'node:module';
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const require = createRequire(import.meta.url);
const Mocha = require('mocha');
const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const grep = args.includes('--grep') ? args[args.indexOf('--grep') + 1] : process.env.PADDOCK_UNIT_GREP;
const dirs = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--grep');

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

const mocha = new Mocha({ timeout: 120_000, slow: 5_000, reporter: 'spec', color: process.stdout.isTTY });
if (grep) mocha.grep(grep);
const base = join(root, 'out', 'test', 'unit');
for (const d of dirs.length ? dirs.map((d) => join(base, d)) : [base]) {
  for (const f of walk(d).sort()) mocha.addFile(f);
}
let passed = 0;
let failed = 0;
let pending = 0;
const runner = mocha.run((failures) => {
  mkdirSync(join(root, 'test-results'), { recursive: true });
  writeFileSync(join(root, 'test-results', 'unit-summary.json'), JSON.stringify({ passed, failed, pending }));
  console.log(`\nunit: ${passed} passed, ${failed} failed${pending ? `, ${pending} skipped` : ''}`);
  process.exitCode = failures > 0 ? 1 : 0;
});
runner.on('pass', () => passed++);
runner.on('fail', () => failed++);
runner.on('pending', () => pending++);
