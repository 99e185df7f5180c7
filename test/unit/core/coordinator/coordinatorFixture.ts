/**
 * Fixture for coordinator tests: a real git repository in a temp dir, a temp
 * store and a short runtime dir, coordinators on that store, and teardown that
 * kills every process a test started (agents carry PADDOCK_JOB_ID) and
 * removes the temp dirs. Workers run from dist/worker.js (`npm run build`).
 */
import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Coordinator, CoordinatorOptions } from '../../../../src/core/coordinator';
import { CoordinatorSettings } from '../../../../src/core/coordinator/settings';
import { findByEnvMarker } from '../../../../src/core/proc';
import { jobLock } from '../../../../src/core/operations/context';
import { isTerminalState, JobRecord, JobStore, LifecycleState } from '../../../../src/core/store';
import { readRepoConfig } from '../../../../src/core/repoConfig/paddockJson';
import { RepoConfigTrust } from '../../../../src/core/repoConfig/trust';
import { DEFAULT_SETTINGS } from '../worker/fixtures';

export const REPO_ROOT = resolve(process.cwd());
export const WORKER_SCRIPT = join(REPO_ROOT, 'dist', 'worker.js');
export const CLI_SCRIPT = join(REPO_ROOT, 'dist', 'cli.js');

export function requireBuild(): void {
  if (!existsSync(WORKER_SCRIPT) || !existsSync(CLI_SCRIPT)) {
    throw new Error('dist/worker.js and dist/cli.js are missing: run `npm run build` first');
  }
}

/** What one run of the CLI bundle gave back. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real bundle (`node dist/cli.js ARGS`) in `cwd` with exactly `env`, to completion,
 * without blocking the event loop. Stdin is /dev/null, or, given `input`, a pipe fed `input` and closed.
 */
/** `timeoutMs`: a run that hangs is SIGKILLed after this long (its code is then -1). */
export function runCli(args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; input?: string; timeoutMs?: number }): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const piped = opts.input !== undefined;
    const bound = opts.timeoutMs ? { timeout: opts.timeoutMs, killSignal: 'SIGKILL' as const } : {};
    const child = spawn(process.execPath, [CLI_SCRIPT, ...args], { cwd: opts.cwd, env: opts.env, stdio: [piped ? 'pipe' : 'ignore', 'pipe', 'pipe'], ...bound });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d) => (stdout += d));
    child.stderr?.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    if (piped) child.stdin?.end(opts.input);
  });
}

/** A CLI error: one line, no stack trace, ending like a sentence. */
export function assertOneSentence(stderr: string): void {
  const lines = stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line expected, got: ${stderr}`);
  assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
  assert.match(lines[0], /[.!?]$/);
}

/** Bytes process `pid` has read so far (files, pipes and sockets: every read call); Linux's /proc. */
export function bytesRead(pid: number): number {
  const rchar = /^rchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
  assert.ok(rchar, `no read count for ${pid}`);
  return Number(rchar[1]);
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
  }).trim();
}

/**
 * Every process's command line from one `ps` (Linux and macOS alike): the teardown's sweep is not
 * under test, and one `ps` per pid cost the portable backend's runs over a second per test.
 */
function everyCommandLine(): Map<number, string> {
  const out = new Map<number, string>();
  for (const line of execFileSync('ps', ['-A', '-ww', '-o', 'pid=,args='], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).split('\n')) {
    const m = /^\s*(\d+)\s(.*)$/.exec(line);
    if (m) out.set(Number(m[1]), m[2]);
  }
  return out;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * The hooks every coordinator suite wants: the build must exist, each test gets a fresh sandbox
 * (handed to `use`) and it is torn down after the test, processes and temp dirs included.
 */
export function useCoordinatorSandbox(use: (sandbox: CoordinatorSandbox) => void): void {
  let current: CoordinatorSandbox | undefined;
  before(requireBuild);
  beforeEach(() => {
    current = new CoordinatorSandbox();
    use(current);
  });
  afterEach(async () => {
    await current?.dispose();
    current = undefined;
  });
}

export class CoordinatorSandbox {
  readonly root = realpathSync(mkdtempSync(join(tmpdir(), 'paddock-coord-')));
  readonly home = join(this.root, 'home');
  readonly repo = join(this.root, 'repo');
  /** Short: socket paths must stay under 108 bytes. */
  readonly runtimeDir = mkdtempSync('/tmp/pdc-');
  readonly store: JobStore;
  readonly env: NodeJS.ProcessEnv;
  private readonly coordinators: Coordinator[] = [];
  private readonly pids: number[] = [];

  constructor() {
    mkdirSync(this.home, { recursive: true });
    mkdirSync(this.repo);
    git(this.repo, 'init', '-q', '-b', 'main');
    writeFileSync(join(this.repo, 'README.md'), 'hello\n');
    git(this.repo, 'add', '.');
    git(this.repo, 'commit', '-q', '-m', 'init');
    this.store = new JobStore({ home: this.home });
    this.env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      LANG: 'C.UTF-8',
      TERM: 'xterm-256color',
      PADDOCK_HOME: this.home,
      PADDOCK_RUNTIME_DIR: join(this.runtimeDir, 'r'),
      // CI runs the suites again with the portable (ps/lsof) backend: every process of a test uses the same one.
      ...(process.env.PADDOCK_PROCESS_BACKEND ? { PADDOCK_PROCESS_BACKEND: process.env.PADDOCK_PROCESS_BACKEND } : {}),
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    };
  }

  coordinator(settings: Partial<CoordinatorSettings> = {}, opts: Partial<CoordinatorOptions> = {}): Coordinator {
    const c = new Coordinator({
      store: new JobStore({ home: this.home }),
      settings: () => ({ stopGraceSeconds: 2, ...settings }),
      workerScript: WORKER_SCRIPT,
      env: this.env,
      tickMs: 0,
      ...opts,
    });
    this.coordinators.push(c);
    return c;
  }

  /** A job written straight to the store, as `start` first writes it: queued, no worktree or base yet. */
  createQueued(title: string): Promise<JobRecord> {
    return this.store.create({
      title,
      repo: this.repo,
      worktree: null,
      branch: null,
      base: 'HEAD',
      baseSha: null,
      profile: null,
      command: ['true'],
      cwd: this.repo,
      envNames: [],
      settings: { ...DEFAULT_SETTINGS, stopGraceMs: 2000 },
    });
  }

  /** Commits a `.paddock.json` whose check is `command`, and allows it (as `paddock allow` does). */
  async trustCheck(command: string): Promise<void> {
    writeFileSync(join(this.repo, '.paddock.json'), JSON.stringify({ check: command }));
    git(this.repo, 'add', '.paddock.json');
    git(this.repo, 'commit', '-qm', 'check');
    await new RepoConfigTrust(this.home).allow((await readRepoConfig(this.repo))!);
  }

  /**
   * `count` records of agents cancelled long ago, as a store gathers them (copies of one, written
   * straight to the store); the bytes of the store's records, what one listing reads.
   */
  async seedEndedRecords(count: number): Promise<number> {
    const seed = await this.createQueued('ended long ago');
    await this.store.transition(seed.id, 'cancelled');
    const record = readFileSync(join(this.store.jobDir(seed.id), 'job.json'), 'utf8');
    for (let i = 1; i < count; i++) {
      const id = `old${String(i).padStart(5, '0')}`;
      mkdirSync(this.store.jobDir(id), { mode: 0o700 });
      writeFileSync(join(this.store.jobDir(id), 'job.json'), record.split(seed.id).join(id));
    }
    assert.equal((await this.store.list()).filter((e) => e.ok).length, count);
    return count * Buffer.byteLength(record);
  }

  /**
   * A start whose launching process was SIGKILLed while git made its worktree: `starting`, the
   * worktree made, no launch or worker recorded, its operation lock free.
   */
  async createAbandonedStart(title: string): Promise<{ id: string; worktree: string }> {
    const queued = await this.createQueued(title);
    const worktree = join(`${this.repo}.worktrees`, queued.id);
    const branch = `paddock/${queued.id}`;
    const baseSha = git(this.repo, 'rev-parse', 'HEAD');
    git(this.repo, 'worktree', 'add', '-q', '-b', branch, worktree, baseSha);
    // As a start records it: the commit the branch was made at with the worktree.
    await this.store.update(queued.id, (j) => ({ ...j, worktree, branch, baseSha, cwd: worktree }));
    await this.store.transition(queued.id, 'starting', { detail: 'creating its worktree' }, { expectFrom: ['queued'] });
    return { id: queued.id, worktree };
  }

  /** A process the test owns (a holder, say); killed at teardown. */
  spawnOwned(command: string, args: string[], cwd: string): number {
    const child = spawn(command, args, { cwd, stdio: 'ignore', detached: true });
    child.unref();
    this.pids.push(child.pid!);
    return child.pid!;
  }

  /**
   * A process that takes job `id`'s operation lock as a start or a launch does and holds it until
   * `kill` (a SIGKILL: its death writes nothing to the store); killed at teardown if a test did not.
   */
  async holdJobLockElsewhere(id: string): Promise<{ kill(): Promise<void> }> {
    const ownedLockModule = resolve(__dirname, '../../../../src/core/coordinator/ownedLock.js');
    const script = `new (require(${JSON.stringify(ownedLockModule)}).OwnedLock)(${JSON.stringify(jobLock(this.store, id).lockDir)}, 'start').tryAcquire().then((l) => { console.log(l ? 'held' : 'busy'); setInterval(() => {}, 1000); })`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'], detached: true });
    this.pids.push(child.pid!);
    const exited = new Promise((r) => child.once('exit', r));
    const kill = async () => {
      child.kill('SIGKILL');
      await exited;
    };
    try {
      const said = await new Promise<string>((done) => child.stdout!.once('data', (d) => done(String(d).trim())));
      assert.equal(said, 'held', 'the lock was free for the holder to take');
    } catch (err) {
      await kill();
      throw err;
    }
    return { kill };
  }

  async waitFor(id: string, predicate: (job: JobRecord) => boolean, timeoutMs = 20_000): Promise<JobRecord> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const job = await this.store.read(id);
      if (predicate(job)) return job;
      if (Date.now() > deadline) throw new Error(`timed out waiting on ${id}: ${JSON.stringify(job.lifecycle)} ${JSON.stringify(job.cleanup)}`);
      await sleep(25);
    }
  }

  waitForState(id: string, states: LifecycleState[], timeoutMs?: number): Promise<JobRecord> {
    return this.waitFor(id, (j) => states.includes(j.lifecycle.state), timeoutMs);
  }

  waitEnded(id: string, timeoutMs?: number): Promise<JobRecord> {
    return this.waitFor(id, (j) => isTerminalState(j.lifecycle.state), timeoutMs);
  }

  branches(): string[] {
    return git(this.repo, 'branch', '--format=%(refname:short)').split('\n').filter(Boolean);
  }

  worktrees(): string[] {
    return git(this.repo, 'worktree', 'list', '--porcelain')
      .split('\n')
      .filter((l) => l.startsWith('worktree '))
      .map((l) => l.slice('worktree '.length));
  }

  async dispose(): Promise<void> {
    for (const c of this.coordinators) c.dispose();
    await Promise.all(this.coordinators.map((c) => c.whenIdle()));
    // First the background coordinators the CLI started for this store (they would go on launching and cleaning up).
    for (const p of findByEnvMarker('PADDOCK_HOME', this.home)) {
      if (p.pid === process.pid) continue;
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    for (const pid of this.pids) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    const entries = await this.store.list().catch(() => []);
    for (const e of entries) {
      for (const p of findByEnvMarker('PADDOCK_JOB_ID', e.id)) {
        try {
          process.kill(p.pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
      if (e.ok && e.job.execution) {
        try {
          process.kill(e.job.execution.pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
    }
    // Workers of ended agents exit on their own a moment later; do not leave any behind.
    for (const [pid, command] of everyCommandLine()) {
      if (pid !== process.pid && command.includes(`--home ${this.home}`)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
    }
    rmSync(this.root, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
    rmSync(this.runtimeDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  }
}
