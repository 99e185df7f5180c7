// Paddock's own client and store, bundled from src for the bench process, so
// the viewer side of every figure is the real WorkerClient (framing, zod
// validation and all), exactly as the CLI and the extension use it.
import * as esbuild from 'esbuild';
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { distRoot, killGroup, onCleanup, root, tempDir } from './env.mjs';

let loaded;
let bundlePath;

/**
 * The core bundle's file, for processes of the bench's own that load it (lib/timingHost.mjs). Its
 * folder goes with the figure that made it (run.mjs cleans up after each figure), so a later
 * figure's process would be handed a file that is gone: made again then.
 */
export async function coreBundle() {
  if (bundlePath === undefined || !existsSync(bundlePath)) bundlePath = await buildCoreBundle();
  return bundlePath;
}

/** The core bundle loaded into the bench's own process (once per run: a module stays loaded after its file is gone). */
export async function loadCore() {
  loaded ??= createRequire(import.meta.url)(await coreBundle());
  return loaded;
}

async function buildCoreBundle() {
  const dir = tempDir('core');
  const entry = join(dir, 'entry.ts');
  writeFileSync(
    entry,
    `export { WorkerClient } from ${JSON.stringify(join(root, 'src/core/protocol/client.ts'))};\n` +
      `export { JobStore } from ${JSON.stringify(join(root, 'src/core/store/index.ts'))};\n` +
      `export { UsageSampler } from ${JSON.stringify(join(root, 'src/core/usage/sampler.ts'))};\n` +
      `export { sampleAndRecordUsage } from ${JSON.stringify(join(root, 'src/core/operations/recordUsage.ts'))};\n` +
      `export { Coordinator } from ${JSON.stringify(join(root, 'src/core/coordinator/index.ts'))};\n`,
  );
  const outfile = join(dir, 'core.cjs');
  await esbuild.build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    external: ['node-pty'],
    minify: true,
    logLevel: 'warning',
    absWorkingDir: root,
  });
  return outfile;
}

/**
 * Runs `op` on a coordinator set up as a window's (src/ui/paddockExtension.ts)
 * but without its loop, and returns how long `op` took: what the operation
 * costs a window whose coordinator is already running — no process start, no
 * bundle load. The coordinator is made before the clock starts and disposed
 * after it stops, so it never keeps the leader lease from the CLI's next start.
 */
export async function timedInWindow(pe, op) {
  const { Coordinator, JobStore } = await loadCore();
  const coordinator = new Coordinator({
    store: new JobStore({ home: pe.home }),
    workerScript: join(distRoot, 'dist', 'worker.js'),
    env: pe.env,
    tickMs: 0,
    watch: false,
    log: () => undefined,
  });
  try {
    const t0 = performance.now();
    const result = await op(coordinator);
    return { ms: performance.now() - t0, result };
  } finally {
    coordinator.dispose();
    await coordinator.whenIdle();
  }
}

/** node-pty, the project's own dependency (what the CLI's workers load). */
export function nodePty() {
  return createRequire(join(root, 'package.json'))('node-pty');
}

/**
 * A fresh process that runs a figure's timed steps (lib/timingHost.mjs says why): `window(method,
 * ...args)` runs a coordinator operation as timedInWindow does, `exec(file, args, cwd)` a process;
 * each resolves with what the host measured ({ ms, ... }). `env`: the figure's (PADDOCK_HOME...).
 */
export async function startTimingHost(env) {
  const host = startLineHost(join(root, 'scripts/bench/lib/timingHost.mjs'), [await coreBundle(), join(distRoot, 'dist', 'worker.js')], env);
  return {
    window: (method, ...args) => host.ask(JSON.stringify({ window: method, args })),
    exec: (file, args, cwd) => host.ask(JSON.stringify({ exec: file, args, cwd })),
    close: host.close,
  };
}

/**
 * A helper process of the bench (`node script ...args`, its own process group, ended at cleanup)
 * that answers each line written to it with one line of JSON, in order: `ask(line)` resolves with
 * that answer parsed.
 */
export function startLineHost(script, args, env) {
  const child = spawn(process.execPath, [script, ...args], { env, stdio: ['pipe', 'pipe', 'inherit'], detached: true });
  onCleanup(() => killGroup(child.pid));
  let buffered = '';
  let ended = null;
  const waiting = [];
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (text) => {
    buffered += text;
    let at;
    while ((at = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
      waiting.shift()?.resolve(JSON.parse(line));
    }
  });
  // A host that dies fails the figure that asked it: an answer that never comes would leave the run
  // with nothing to wait on, and Node would end it silently, the rows after unmeasured.
  child.on('exit', (code, signal) => {
    ended = new Error(`${script} ended (${signal ?? `exit ${code}`}) with ${waiting.length} question(s) unanswered`);
    for (const w of waiting.splice(0)) w.reject(ended);
  });
  child.stdin.on('error', () => undefined);
  return {
    pid: child.pid,
    ask: (line) =>
      new Promise((resolve, reject) => {
        if (ended) return reject(ended);
        waiting.push({ resolve, reject });
        child.stdin.write(`${line}\n`);
      }),
    close: () => child.stdin.end(),
  };
}
