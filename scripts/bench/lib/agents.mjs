// Starting the same program three ways: as a Paddock agent (CLI + worker,
// viewed through WorkerClient), on a bare node-pty, and inside tmux with a
// client attached through a PTY (so tmux really renders and delivers output).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { loadCore, nodePty } from './core.mjs';
import { cliOk, onCleanup, sleep, tempDir } from './env.mjs';

const COLS = 80;
const ROWS = 24;

/** A Paddock agent running `sh -c script`; resolves once its worker's socket answers. */
export async function startPaddockAgent(pe, script, { repo, title = 'bench' } = {}) {
  const { JobStore, WorkerClient } = await loadCore();
  const r = await cliOk(pe.env, ['start', '--repo', repo, '--title', title, '--', 'sh', '-c', script]);
  const id = r.stdout.trim();
  const store = new JobStore({ home: pe.home });
  onCleanup(() => cliOk(pe.env, ['stop', '--force', id]).catch(() => undefined));
  // Prove the worker serves before anyone measures against it.
  const probe = await WorkerClient.connect(store, id, { connectTimeoutMs: 15_000 });
  await probe.hello();
  probe.dispose();
  return { id, store };
}

/** Connects and attaches a viewer at 80×24; returns { client, ready, ms }. */
export async function attachViewer(store, id) {
  const { WorkerClient } = await loadCore();
  const t0 = performance.now();
  const client = await WorkerClient.connect(store, id, { connectTimeoutMs: 15_000 });
  const t1 = performance.now();
  const ready = await client.attach({ cols: COLS, rows: ROWS, readOnly: false });
  const t2 = performance.now();
  // connectMs: record read + socket connect; attachMs: attach frame → ready with the serialized screen.
  return { client, ready, ms: t2 - t0, connectMs: t1 - t0, attachMs: t2 - t1 };
}

export async function stopPaddockAgent(pe, id) {
  await cliOk(pe.env, ['stop', '--force', id]);
}

/** The same program on a bare PTY, in the bench process: the physical limit. */
export function spawnBare(script, cwd) {
  const pty = nodePty().spawn('sh', ['-c', script], {
    name: 'xterm-256color',
    cols: COLS,
    rows: ROWS,
    cwd,
    env: cleanEnv(),
    encoding: null,
  });
  onCleanup(() => killPty(pty));
  return pty;
}

export function killPty(pty) {
  try {
    process.kill(-pty.pid, 'SIGKILL');
  } catch {
    // gone
  }
  try {
    pty.kill('SIGKILL');
  } catch {
    // gone
  }
}

function cleanEnv() {
  const env = { ...process.env, TERM: 'xterm-256color' };
  delete env.NODE_OPTIONS;
  delete env.TMUX;
  return env;
}

/** A tmux server of its own (private socket, no config) running `sh -c script` in an 80×24 session. */
export function startTmux(script, cwd) {
  const dir = tempDir('tmux');
  const sock = join(dir, 'sock');
  const tmux = (...a) => execFileSync('tmux', ['-S', sock, '-f', '/dev/null', ...a], { env: cleanEnv(), cwd, stdio: 'pipe' });
  tmux('new-session', '-d', '-x', String(COLS), '-y', String(ROWS), 'sh', '-c', script);
  tmux('set-option', '-g', 'status', 'off');
  onCleanup(() => {
    try {
      tmux('kill-server');
    } catch {
      // already gone
    }
  });
  return { sock, tmux };
}

/** A real tmux client in a PTY: what a person's terminal receives from tmux. */
export function attachTmuxClient(sock) {
  return spawnViewer('tmux', ['-S', sock, '-f', '/dev/null', 'attach']);
}

/** A viewer program (tmux client, `paddock attach`) in an 80×24 PTY standing for the person's terminal. */
export function spawnViewer(file, args, env) {
  const pty = nodePty().spawn(file, args, {
    name: 'xterm-256color',
    cols: COLS,
    rows: ROWS,
    env: { ...cleanEnv(), ...env, TERM: 'xterm-256color' },
    encoding: null,
  });
  onCleanup(() => killPty(pty));
  return pty;
}

/** Resolves when `needle` shows up in a stream of chunks (across chunk boundaries). */
export function waitFor(onData, needle, { timeoutMs = 120_000, onChunk } = {}) {
  return new Promise((resolve, reject) => {
    let tail = '';
    let sub;
    const timer = setTimeout(() => {
      sub?.dispose?.();
      reject(new Error(`timed out waiting for ${JSON.stringify(needle)}`));
    }, timeoutMs);
    sub = onData((chunk) => {
      const s = typeof chunk === 'string' ? chunk : chunk.toString('latin1');
      onChunk?.(s);
      const hay = tail + s;
      if (hay.includes(needle)) {
        clearTimeout(timer);
        sub?.dispose?.();
        resolve(performance.now());
        return;
      }
      tail = hay.slice(-needle.length);
    });
  });
}

export { COLS, ROWS, sleep };
