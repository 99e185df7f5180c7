// A fresh process that times what a figure asks of it, so that a row measured
// there starts from the same state whether it runs alone (`--only`) or after
// every other figure of a full run. The bench's own process is not that: the
// figures before leave it with a larger heap and more memory mapped (node-pty,
// esbuild's service, what the relay and the starts allocated), and every child
// process it starts costs more with it — Node's spawn waits while the kernel
// copies and then drops the parent's page tables. Measured on the 2-core VM
// (2026-12-06): the bench process held 57 MB before its first figure and 112
// MB after `reattach` and `start`; a window's merge there spends 1–7 ms in
// each of its eight `spawn` calls at 65 MB, 20–30 ms at 480 MB (the whole merge
// ~130 → ~300 ms, a `git merge` run from the same process ~80 → ~105 ms), so the
// side that starts eight processes was measured slower against the side that
// starts one. Here both sides start their processes from the same small process.
//
//   node timingHost.mjs CORE_BUNDLE WORKER_SCRIPT   (PADDOCK_HOME in the environment)
//
// Reads one JSON request per line on stdin, answers one JSON line on stdout:
//   {"window": "merge", "args": [...]}  a coordinator set up as a window's
//     (lib/core.mjs timedInWindow) runs that operation → {"ms"} or {"error"}
//   {"exec": FILE, "args": [...], "cwd": DIR} a process run to its end → {"ms", "code", "stderr"}
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const [bundle, workerScript] = process.argv.slice(2);
const { Coordinator, JobStore } = require(bundle);
const home = process.env.PADDOCK_HOME;

async function inWindow(method, args) {
  const coordinator = new Coordinator({ store: new JobStore({ home }), workerScript, env: process.env, tickMs: 0, watch: false, log: () => undefined });
  try {
    const t0 = performance.now();
    await coordinator[method](...args);
    return { ms: performance.now() - t0 };
  } catch (err) {
    return { error: err.message };
  } finally {
    coordinator.dispose();
    await coordinator.whenIdle();
  }
}

function run(file, args, cwd) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    execFile(file, args, { cwd }, (err, _stdout, stderr) => resolve({ ms: performance.now() - t0, code: err ? (err.code ?? 1) : 0, stderr }));
  });
}

let buffered = '';
let queue = Promise.resolve();
process.stdin.setEncoding('utf8');
process.stdin.on('data', (text) => {
  buffered += text;
  let at;
  while ((at = buffered.indexOf('\n')) >= 0) {
    const request = JSON.parse(buffered.slice(0, at));
    buffered = buffered.slice(at + 1);
    queue = queue.then(async () => {
      const answer = request.window ? await inWindow(request.window, request.args) : await run(request.exec, request.args, request.cwd);
      process.stdout.write(`${JSON.stringify(answer)}\n`);
    });
  }
});
process.stdin.on('end', () => queue.then(() => process.exit(0)));
