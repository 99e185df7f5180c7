/**
 * Test fixtures for the worker: a temp store and a short runtime dir per test,
 * a worker bundle built once from src (so tests never depend on a stale dist/),
 * a minimal "start" (store.create + spawnWorker; the real `paddock start` is the
 * CLI's), and cleanup that kills everything a test started.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { findByEnvMarker, readProcStat } from '../../../../src/core/proc';
import { JobRecord, JobSettings, JobStore, LifecycleState } from '../../../../src/core/store';
import { spawnWorker } from '../../../../src/core/worker/spawn';
import type { WorkerClient } from '../../../../src/core/protocol/client';

/** Tests run from the repository root (npm test, mocha). */
const REPO_ROOT = resolve(process.cwd());
let bundled: string | undefined;

/** Bundles src/core/worker/main.ts once per test process. */
export function workerScript(): string {
  if (bundled && existsSync(bundled)) return bundled;
  const outDir = mkdtempSync(join(tmpdir(), 'paddock-worker-bundle-'));
  const out = join(outDir, 'worker.js');
  const esbuild = join(REPO_ROOT, 'node_modules', '.bin', 'esbuild');
  execFileSync(esbuild, [join(REPO_ROOT, 'src/core/worker/main.ts'), '--bundle', '--platform=node', '--target=node20', '--format=cjs', '--external:node-pty', `--outfile=${out}`, '--log-level=warning'], {
    cwd: REPO_ROOT,
  });
  bundled = out;
  return out;
}

export function nodePtyPath(): string {
  return require.resolve('node-pty', { paths: [REPO_ROOT] });
}

export const DEFAULT_SETTINGS: JobSettings = {
  stopGraceMs: 3000,
  waitingPattern: null,
  idleSeconds: null,
  resumeArgs: null,
  secretEnvNames: [],
  autoRestart: false,
  recoveryLimit: 0,
};

export class Sandbox {
  readonly home = mkdtempSync(join(tmpdir(), 'paddock-home-'));
  /** Short on purpose: socket paths must stay under 108 bytes. */
  readonly runtimeDir = mkdtempSync('/tmp/pdk-');
  readonly cwd = mkdtempSync(join(tmpdir(), 'paddock-cwd-'));
  readonly store = new JobStore({ home: this.home });
  readonly env: NodeJS.ProcessEnv;
  private readonly jobs: string[] = [];
  private readonly workerPids: number[] = [];

  constructor(extraEnv: NodeJS.ProcessEnv = {}) {
    mkdirSync(join(this.home, 'jobs'), { recursive: true });
    this.env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      LANG: 'C.UTF-8',
      TERM: 'xterm-256color',
      PADDOCK_HOME: this.home,
      PADDOCK_RUNTIME_DIR: join(this.runtimeDir, 'r'),
      // CI runs the suites again with the portable (ps/lsof) backend: every process of a test uses the same one.
      ...(process.env.PADDOCK_PROCESS_BACKEND ? { PADDOCK_PROCESS_BACKEND: process.env.PADDOCK_PROCESS_BACKEND } : {}),
      ...extraEnv,
    };
  }

  /** A new job record for `command` (no worker yet); disposed with the sandbox. */
  async createJob(command: string[], opts: { settings?: Partial<JobSettings>; cwd?: string } = {}): Promise<JobRecord> {
    const job = await this.store.create({
      title: command.join(' ').slice(0, 100),
      repo: this.cwd,
      worktree: null,
      branch: null,
      base: null,
      baseSha: null,
      profile: null,
      command,
      cwd: opts.cwd ?? this.cwd,
      envNames: [],
      settings: { ...DEFAULT_SETTINGS, ...opts.settings },
    });
    this.jobs.push(job.id);
    return job;
  }

  async start(
    command: string[],
    opts: { settings?: Partial<JobSettings>; cwd?: string; waitFor?: LifecycleState[]; beforeSpawn?: (job: JobRecord) => Promise<void>; nodePtyPath?: string } = {},
  ): Promise<JobRecord> {
    const job = await this.createJob(command, opts);
    await opts.beforeSpawn?.(job);
    const { pid } = await spawnWorker({
      home: this.home,
      jobId: job.id,
      generation: job.lifecycle.generation,
      workerScript: workerScript(),
      nodePtyPath: opts.nodePtyPath ?? nodePtyPath(),
      env: this.env,
      store: this.store,
    });
    this.workerPids.push(pid);
    return this.waitForState(job.id, opts.waitFor ?? ['running', 'waiting', 'completed', 'failed']);
  }

  async waitForState(id: string, states: LifecycleState[], timeoutMs = 15_000): Promise<JobRecord> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const job = await this.store.read(id);
      if (states.includes(job.lifecycle.state)) return job;
      if (Date.now() > deadline) throw new Error(`job ${id} stayed ${job.lifecycle.state}, wanted ${states.join('|')}`);
      await sleep(25);
    }
  }

  /** Waits until the worker process has exited (it lingers briefly after the agent ended). */
  async waitForWorkerExit(pid: number, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (readProcStat(pid) && readProcStat(pid)?.state !== 'Z') {
      if (Date.now() > deadline) throw new Error(`worker ${pid} did not exit`);
      await sleep(25);
    }
  }

  /** A worker a test spawned itself (`spawnWorker` with its own options): ended with the sandbox. */
  adoptWorker(pid: number): void {
    this.workerPids.push(pid);
  }

  /**
   * Kills every process this sandbox started (workers, agents, escapees), then removes its
   * directories once they are gone: a worker killed a moment ago, or one lingering after its
   * agent ended, may still be writing into the store (*ENOTEMPTY* on the removal).
   */
  dispose(): void {
    const killed = [...this.workerPids];
    for (const id of this.jobs) {
      for (const p of findByEnvMarker('PADDOCK_JOB_ID', id)) killed.push(p.pid);
    }
    for (const pid of killed) tryKill(pid);
    waitUntilGone(killed, 5_000);
    for (const dir of [this.home, this.runtimeDir, this.cwd]) rmSync(dir, { recursive: true, force: true });
  }
}

/** Blocks until every pid has exited (a zombie counts: it runs no more), or the time is up. */
function waitUntilGone(pids: number[], timeoutMs: number): void {
  const deadline = Date.now() + timeoutMs;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (pids.some((pid) => (readProcStat(pid)?.state ?? 'Z') !== 'Z') && Date.now() < deadline) Atomics.wait(pause, 0, 0, 10);
}

function tryKill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone
  }
}

/** Each test's own Sandbox, and the clients it connects (push them to `clients`): all disposed after it. */
export function useWorkerSandbox(): { readonly sb: Sandbox; readonly clients: WorkerClient[] } {
  let current: Sandbox | undefined;
  const clients: WorkerClient[] = [];
  beforeEach(() => (current = new Sandbox()));
  afterEach(() => {
    for (const c of clients.splice(0)) c.dispose();
    current?.dispose();
    current = undefined;
  });
  return {
    get sb(): Sandbox {
      if (!current) throw new Error('the worker sandbox exists only inside a test');
      return current;
    },
    clients,
  };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function waitUntil(what: string, fn: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** Runs one CLI command in-process with captured output. */
export async function runCli(
  command: { run(argv: string[], ctx: import('../../../../src/cli/command').CliContext): Promise<number> },
  argv: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const { PassThrough } = await import('node:stream');
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (c: Buffer) => out.push(c));
  stderr.on('data', (c: Buffer) => err.push(c));
  const stdin = new PassThrough();
  // In-process commands live in out/, not next to dist/worker.js: name the worker bundle.
  const withWorker = { PADDOCK_WORKER_SCRIPT: workerScript(), ...env };
  const code = await command.run(argv, { io: { stdout, stderr, stdin }, env: withWorker, cwd: process.cwd() });
  return { code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() };
}

/** A real tmux pane at a fixed size, as the reference terminal. */
export class TmuxPane {
  private readonly name = `pdk${process.pid}x${Math.random().toString(36).slice(2, 8)}`;
  private readonly conf: string;

  constructor(
    command: string[],
    env: NodeJS.ProcessEnv,
    cwd: string,
    readonly cols = 80,
    readonly rows = 24,
  ) {
    this.conf = join(mkdtempSync(join(tmpdir(), 'pdk-tmux-')), 'tmux.conf');
    writeFileSync(this.conf, 'set -g status off\nset -g default-terminal xterm-256color\nset -g remain-on-exit on\nset -g history-limit 1000\n');
    const quoted = command.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    execFileSync('tmux', ['-L', this.name, '-f', this.conf, 'new-session', '-d', '-x', String(cols), '-y', String(rows), '-c', cwd, quoted], {
      env: { ...env, TMUX: undefined } as NodeJS.ProcessEnv,
    });
  }

  sendLine(text: string): void {
    execFileSync('tmux', ['-L', this.name, 'send-keys', '-t', '0', '-l', text]);
    execFileSync('tmux', ['-L', this.name, 'send-keys', '-t', '0', 'Enter']);
  }

  sendKeys(...keys: string[]): void {
    execFileSync('tmux', ['-L', this.name, 'send-keys', '-t', '0', ...keys]);
  }

  /** Types raw bytes, e.g. an escape sequence a terminal would send for a key. */
  sendBytes(bytes: string): void {
    const hex = [...Buffer.from(bytes, 'latin1')].map((b) => b.toString(16).padStart(2, '0'));
    execFileSync('tmux', ['-L', this.name, 'send-keys', '-t', '0', '-H', ...hex]);
  }

  /** Resizes the pane, as a person resizing the terminal window. */
  resize(cols: number, rows: number): void {
    execFileSync('tmux', ['-L', this.name, 'resize-window', '-t', '0', '-x', String(cols), '-y', String(rows)]);
  }

  /** A tmux format of the pane, e.g. `#{alternate_on}`: the terminal modes the program left set. */
  format(fmt: string): string {
    return execFileSync('tmux', ['-L', this.name, 'display-message', '-p', '-t', '0', fmt]).toString().trim();
  }

  capture(): string[] {
    const text = execFileSync('tmux', ['-L', this.name, 'capture-pane', '-p', '-t', '0']).toString();
    return trimLines(text.split('\n'));
  }

  /** The pane with its attributes and character sets as escape sequences, and the cursor: what a person sees. */
  captureStyled(): string {
    const text = execFileSync('tmux', ['-L', this.name, 'capture-pane', '-p', '-e', '-N', '-t', '0']).toString();
    return `${text}cursor ${this.format('#{cursor_x},#{cursor_y}')}`;
  }

  dispose(): void {
    try {
      execFileSync('tmux', ['-L', this.name, 'kill-server'], { stdio: 'ignore' });
    } catch {
      // already gone
    }
  }
}

export function trimLines(lines: string[]): string[] {
  const out = lines.map((l) => l.replace(/ +$/, ''));
  while (out.length && out[out.length - 1] === '') out.pop();
  return out;
}

/** Polls `read` until it returns the same value `times` times in a row. */
export async function stable<T>(read: () => Promise<T> | T, times = 3, everyMs = 150, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = JSON.stringify(await read());
  let same = 1;
  while (same < times) {
    if (Date.now() > deadline) break;
    await sleep(everyMs);
    const now = JSON.stringify(await read());
    same = now === last ? same + 1 : 1;
    last = now;
  }
  return JSON.parse(last) as T;
}
