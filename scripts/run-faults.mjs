// Runs the fault, bad-input and security suites (out/test/faults/**) with mocha's
// spec reporter and writes the counts to test-results/faults-summary.json.
// `npm run test:faults` builds and compiles first; CI runs it after `npm test`.
import { createRequire } from 'node:module';
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const require = createRequire(import.meta.url);
const Mocha = require('mocha');
const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const grep = args.includes('--grep') ? args[args.indexOf('--grep') + 1] : process.env.PADDOCK_FAULTS_GREP;

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

// Long cases set their own timeouts; this is the ceiling for the rest.
const mocha = new Mocha({ timeout: 300_000, slow: 30_000, reporter: 'spec', color: process.stdout.isTTY });
if (grep) mocha.grep(grep);
for (const f of walk(join(root, 'out', 'test', 'faults')).sort()) mocha.addFile(f);
let passed = 0;
let failed = 0;
let pending = 0;
const runner = mocha.run((failures) => {
  mkdirSync(join(root, 'test-results'), { recursive: true });
  writeFileSync(join(root, 'test-results', 'faults-summary.json'), JSON.stringify({ passed, failed, pending }));
  console.log(`\nfaults: ${passed} passed, ${failed} failed${pending ? `, ${pending} skipped` : ''}`);
  process.exitCode = failures > 0 ? 1 : 0;
});
runner.on('pass', () => passed++);
runner.on('fail', () => failed++);
runner.on('pending', () => pending++);
