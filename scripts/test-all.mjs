// `npm test`: lint + types, unit suites, then the host suites in a real VS Code.
// Each step runs even when an earlier one failed, so one run shows everything;
// ends with one line "N passed, N failed, N skipped" and exits non-zero on any failure.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const results = join(root, 'test-results');
let passed = 0;
let failed = 0;
let skipped = 0;

function step(name, cmd, args) {
  console.log(`\n=== ${name}: ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  return r.status === 0;
}

function counts(file) {
  const p = join(results, file);
  if (!existsSync(p)) return undefined;
  return JSON.parse(readFileSync(p, 'utf8'));
}

for (const f of ['unit-summary.json', 'host-summary.json']) rmSync(join(results, f), { force: true });

const built = step('build', 'npm', ['run', '--silent', 'build']) && step('compile tests', 'node', ['scripts/compile-tests.mjs']);
if (!built) {
  console.log('\n0 passed, 1 failed, 0 skipped');
  process.exit(1);
}

if (step('lint', 'npm', ['run', '--silent', 'lint'])) passed++;
else failed++;

// Two lanes: the suites mostly wait on the processes they start (docs/testing.md).
const unitOk = step('unit', 'node', ['scripts/run-unit.mjs', '--lanes', '2']);
const unit = counts('unit-summary.json');
if (unit) {
  passed += unit.passed;
  failed += unit.failed;
  skipped += unit.pending ?? 0;
}
if (!unitOk && (!unit || unit.failed === 0)) failed++;

const hostOk = step('host', 'node', ['scripts/host-test.mjs']);
const host = counts('host-summary.json');
if (host) {
  passed += host.passed;
  failed += host.failed;
  skipped += host.skipped ?? 0;
}
if (!hostOk && (!host || host.failed === 0)) failed++;

console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed === 0 ? 0 : 1);
