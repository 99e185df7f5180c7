/** Shared set-up for the store tests: temp homes, sample jobs, and child processes that are always reaped. */
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { JobRecord, JobStore, NewJob, JobStoreOptions } from '../../../../src/core/store';
import { branchNameFor, worktreePathFor } from '../../../../src/core/store/agentClaims';
import { initialRecord } from '../../../../src/core/store/newJob';
import { leaderLock } from '../../../../src/core/scheduler/leadership';
import { DEFAULT_LOCK_OPTIONS, withLock } from '../../../../src/core/store/locks';
import { StoreLayout } from '../../../../src/core/store/paths';

/**
 * A new agent as `start` creates it: no worktree or branch yet (the record may claim only the ones
 * named after its id, which the store gives it at creation: see `createWithWorktree`).
 */
export function sampleJob(overrides: Partial<NewJob> = {}): NewJob {
  return {
    title: 'fix the tests',
    repo: '/tmp/repo',
    worktree: null,
    branch: null,
    base: 'main',
    baseSha: null,
    profile: 'shell',
    command: ['bash', '-lc', 'echo hi'],
    cwd: '/tmp/repo',
    envNames: [],
    settings: {
      stopGraceMs: 2000,
      waitingPattern: null,
      idleSeconds: null,
      resumeArgs: null,
      secretEnvNames: [],
      autoRestart: false,
      recoveryLimit: 3,
    },
    ...overrides,
  };
}

/** Agent `id`'s first record with its own worktree and branch (as `start` assigns them), for tests that need no store. */
export function sampleRecord(id: string, overrides: Partial<NewJob> = {}, now = new Date().toISOString()): JobRecord {
  const init = sampleJob(overrides);
  const worktree = overrides.worktree !== undefined ? overrides.worktree : worktreePathFor(init.repo, id, null);
  return initialRecord(id, { ...init, worktree, branch: overrides.branch !== undefined ? overrides.branch : branchNameFor(id) }, now);
}

/** Creates a sample agent and gives it its own worktree and branch, as `start` does once its id exists. */
export async function createWithWorktree(store: JobStore, overrides: Partial<NewJob> = {}): Promise<JobRecord> {
  const created = await store.create(sampleJob(overrides));
  const worktree = worktreePathFor(created.repo, created.id, null);
  return store.update(created.id, (j) => ({ ...j, worktree, branch: branchNameFor(j.id), cwd: overrides.cwd ?? worktree }));
}

/** A temp PADDOCK_HOME per test, removed afterwards, plus every child it spawned killed. */
/** Registers the hooks of a store suite: a fresh TestBed and its store per test, removed after it. */
export function useTestBed(use: (bed: TestBed, store: JobStore) => void): void {
  let current: TestBed | undefined;
  beforeEach(() => {
    current = new TestBed();
    use(current, current.store());
  });
  afterEach(async () => {
    await current?.cleanup();
    current = undefined;
  });
}

export class TestBed {
  readonly home = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-store-'));
  private readonly children = new Set<ChildProcess>();

  store(opts: Partial<JobStoreOptions> = {}): JobStore {
    return new JobStore({ home: this.home, ...opts });
  }

  /** Runs a compiled fixture (test/unit/core/store/fixtures/<name>.js) with `node`. */
  spawnFixture(name: string, args: string[], stdio: 'pipe' | 'ignore' = 'pipe'): ChildProcess {
    const script = path.join(__dirname, 'fixtures', `${name}.js`);
    const child = spawn(process.execPath, [script, this.home, ...args], { stdio: ['ignore', stdio, 'pipe'] });
    this.children.add(child);
    child.on('exit', () => this.children.delete(child));
    return child;
  }

  async cleanup(): Promise<void> {
    for (const child of this.children) child.kill('SIGKILL');
    await Promise.all([...this.children].map((c) => exited(c)));
    fs.rmSync(this.home, { recursive: true, force: true });
  }
}

export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** Resolves with the first stdout line that matches, failing with stderr if the child exits first. */
export function waitForLine(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr?.on('data', (d) => (err += d));
    const onData = (d: Buffer) => {
      out += d;
      const line = out.split('\n').find((l) => pattern.test(l));
      if (line !== undefined) {
        child.stdout?.off('data', onData);
        resolve(line);
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code, signal) => reject(new Error(`fixture exited (${code ?? signal}) before printing ${pattern}: ${err}`)));
  });
}

/** Every file under `dir`, recursively. */
export function allFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...allFiles(p));
    else out.push(p);
  }
  return out;
}

/**
 * Overwrites an agent's record, as damage from outside does, while holding the record's lock as every
 * writer does: a write that read the record before (a worker's, a usage sample's) has landed by then,
 * and every write after finds the damage. Unlocked, such a write could land once over the damage.
 */
export async function damageRecord(home: string, id: string, text: string): Promise<void> {
  const layout = new StoreLayout(home);
  await withLock(layout.recordLock(id), `agent ${id} (damaged by a test)`, DEFAULT_LOCK_OPTIONS, async () => {
    fs.writeFileSync(layout.recordFile(id), text);
  });
}

/**
 * Runs `fn` as with a VS Code window open on the store: its coordinator holds the leader lease and
 * launches what is queued, so `list` and `show` only show (with none, they would start the background
 * coordinator for records the store made queued and nothing launches).
 */
export function withWindowOpen<T>(home: string, fn: () => Promise<T>): Promise<T> {
  return leaderLock(home).with(10_000, fn);
}
