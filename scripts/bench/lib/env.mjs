// The bench's sandbox: temp dirs (PADDOCK_HOME, PADDOCK_RUNTIME_DIR, repos) and
// every process it starts, all released by cleanupAll() even after a failure.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const root = resolve(import.meta.dirname, '..', '..', '..');

/** A dependency's folder as a JS string literal, for programs the bench writes and runs with `node -e`. */
export const nodeModule = (name) => JSON.stringify(join(root, 'node_modules', name));
/** The bundles under test: a private copy of dist/ once snapshotDist() ran (see there). */
export let distRoot = root;
export let cliPath = join(root, 'dist', 'cli.js');

/**
 * Copies the freshly built bundles into a private extension folder, so a
 * rebuild of dist/ by someone else during the run cannot change what is
 * measured. node_modules (node-pty, for the workers) and media are linked.
 */
export function snapshotDist() {
  const dir = mkdtempSync(join(tmpdir(), 'pb-dist-'));
  mkdirSync(join(dir, 'dist'));
  for (const f of ['cli.js', 'cliMain.js', 'screenText.js', 'worker.js', 'workerMain.js', 'extension.js']) copyFileSync(join(root, 'dist', f), join(dir, 'dist', f));
  copyFileSync(join(root, 'package.json'), join(dir, 'package.json'));
  // The manifest's titles are %keys% resolved from here: without it the UI shows the keys (treeScale finds its view and menu items by title).
  copyFileSync(join(root, 'package.nls.json'), join(dir, 'package.nls.json'));
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  symlinkSync(join(root, 'media'), join(dir, 'media'));
  distRoot = dir;
  cliPath = join(dir, 'dist', 'cli.js');
  return dir;
}

export function dropSnapshot() {
  if (distRoot !== root) rmSync(distRoot, { recursive: true, force: true });
  distRoot = root;
  cliPath = join(root, 'dist', 'cli.js');
}

const tempDirs = [];
const cleanups = [];

export function tempDir(prefix) {
  const d = mkdtempSync(join(tmpdir(), `pb-${prefix}-`));
  tempDirs.push(d);
  return d;
}

/** Registers work to do at the end (newest first): kill a process, stop a tmux server... */
export function onCleanup(fn) {
  cleanups.push(fn);
}

export async function cleanupAll() {
  while (cleanups.length) {
    const fn = cleanups.pop();
    try {
      await fn();
    } catch {
      // best effort: the next one must still run
    }
  }
  for (const d of tempDirs.splice(0)) {
    try {
      // A process of a failed figure may still be writing there: retry, then leave it rather than crash the run.
      rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    } catch (err) {
      console.log(`[bench] could not remove ${d}: ${err.message}`);
    }
  }
}

export function killGroup(pid, signal = 'SIGKILL') {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // gone
    }
  }
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A store + runtime dir of its own: each figure runs against a fresh Paddock. */
export function paddockEnv(name) {
  const home = tempDir(`${name}-home`);
  // Socket paths must stay short (108 bytes): a short dir directly under /tmp.
  const runtime = mkdtempSync('/tmp/pbr-');
  tempDirs.push(runtime);
  const env = { ...process.env, PADDOCK_HOME: home, PADDOCK_RUNTIME_DIR: runtime };
  delete env.NODE_OPTIONS;
  // Whatever happens, no worker of this store survives the bench.
  onCleanup(() => killWorkersOf(home));
  return { home, runtime, env };
}

/** Runs the CLI and returns { code, stdout, stderr, ms }. */
export function cli(env, args, opts = {}) {
  return new Promise((resolvePromise, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [cliPath, ...args], { env, cwd: opts.cwd ?? root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr, ms: performance.now() - t0 }));
  });
}

export async function cliOk(env, args, opts) {
  const r = await cli(env, args, opts);
  if (r.code !== 0) throw new Error(`paddock ${args.join(' ')} exited ${r.code}: ${r.stderr.trim()}`);
  return r;
}

/** Kills every process whose environment names this PADDOCK_HOME (workers and their agents). */
export function killWorkersOf(home) {
  const needle = Buffer.from(`PADDOCK_HOME=${home}\0`);
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/environ`).includes(needle)) process.kill(pid, 'SIGKILL');
    } catch {
      // gone, or not ours to read
    }
  }
}
