// Runs compiled mocha suites under out/test/<area> with the spec reporter, writes
// the counts to test-results/<area>-summary.json and prints "<area>: N passed, N failed, N skipped".
// `forbidOnly`: a stray `.only` fails the run instead of silently running one test.
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const require = createRequire(import.meta.url);
const Mocha = require('mocha');
const root = resolve(import.meta.dirname, '..', '..');

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

const LINGER_MS = 30_000;

/** What keeps the event loop alive, one phrase each: the child processes by pid and command, the rest by kind. */
function describeOpenHandles() {
  const children = process
    ._getActiveHandles()
    .filter((h) => h?.constructor?.name === 'ChildProcess')
    .map((c) => `child process ${c.pid} (${(c.spawnargs ?? []).join(' ').slice(0, 120)})`);
  const kinds = new Map();
  // A terminal's own handle holds nothing; a child process is named above.
  for (const kind of process.getActiveResourcesInfo()) if (kind !== 'TTYWrap' && kind !== 'ProcessWrap') kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  // This check's own timer is one of the Timeouts.
  if (kinds.has('Timeout')) kinds.set('Timeout', kinds.get('Timeout') - 1);
  const rest = [...kinds].filter(([, n]) => n > 0).map(([kind, n]) => `${n} ${kind}`);
  return [...children, ...rest].join(', ') || 'nothing Node reports';
}

/** `folders`: sub-folders of out/test/<area> to run (all when empty). */
export function runSuite({ area, summaryName = area, timeout, slow, grep, folders = [] }) {
  const mocha = new Mocha({ timeout, slow, reporter: 'spec', color: process.stdout.isTTY, forbidOnly: true });
  if (grep) mocha.grep(grep);
  const base = join(root, 'out', 'test', area);
  for (const d of folders.length ? folders.map((f) => join(base, f)) : [base]) {
    // A name may also be one suite file without its extension (`crashRestart`, `core/proc/scan`).
    if (existsSync(`${d}.test.js`)) mocha.addFile(`${d}.test.js`);
    else for (const f of walk(d).sort()) mocha.addFile(f);
  }
  let passed = 0;
  let failed = 0;
  let pending = 0;
  const writeCounts = () => {
    mkdirSync(join(root, 'test-results'), { recursive: true });
    writeFileSync(join(root, 'test-results', `${summaryName}-summary.json`), JSON.stringify({ passed, failed, pending }));
  };
  const runner = mocha.run((failures) => {
    writeCounts();
    console.log(`\n${summaryName}: ${passed} passed, ${failed} failed, ${pending} skipped`);
    process.exitCode = failures > 0 ? 1 : 0;
    // A suite that leaves a child process, socket, watcher or timer behind keeps this process alive
    // forever, and a CI run with it hangs until its 90 minutes are up. The timer does not hold the
    // process itself (unref): it fires only when something else does, names what, and fails the suite.
    setTimeout(() => {
      failed++;
      writeCounts();
      console.log(`\n${summaryName}: failed: its process was still held open ${LINGER_MS / 1000} s after its last test by: ${describeOpenHandles()}`);
      process.exit(1);
    }, LINGER_MS).unref();
  });
  runner.on('pass', () => passed++);
  runner.on('fail', () => failed++);
  runner.on('pending', (test) => {
    pending++;
    // A test that skips itself says why (`skipBecause` in test/faults/faultKit.ts): printed under its line.
    if (test.skipReason) console.log(`      skipped: ${test.skipReason}`);
  });
}

/** `--grep PATTERN`, `--summary NAME` (the counts' file, for a lane), `--lanes N` and positional folders from argv. */
export function suiteArgs(argv, envGrep) {
  const valueOf = (flag) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);
  const grep = valueOf('--grep') ?? envGrep;
  const folders = argv.filter((a, i) => !a.startsWith('--') && argv[i - 1] !== '--grep' && argv[i - 1] !== '--summary' && argv[i - 1] !== '--lanes');
  return { grep, folders, summaryName: valueOf('--summary'), lanes: Number(valueOf('--lanes') ?? 1) };
}
