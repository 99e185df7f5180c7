/** Throw-away git repositories in temp dirs for the git tests. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

/** An empty HOME for every git the tests run: the person's ~/.gitconfig and ~/.config/git are never read. */
const EMPTY_HOME = realpathSync(mkdtempSync(path.join(tmpdir(), 'paddock-git-home-')));
process.on('exit', () => rmSync(EMPTY_HOME, { recursive: true, force: true }));

const ENV = {
  ...process.env,
  HOME: EMPTY_HOME,
  XDG_CONFIG_HOME: path.join(EMPTY_HOME, '.config'),
  LC_ALL: 'C',
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

/**
 * Puts `process.env` back to `saved` in place. Assigning a new object to `process.env` would
 * replace Node's environment object with a plain one for the rest of the run (values no longer
 * turned into strings, `delete` no longer reaching the real environment).
 */
function restoreEnv(saved: NodeJS.ProcessEnv): void {
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
  for (const [name, value] of Object.entries(saved)) if (value !== undefined) process.env[name] = value;
}

/** Runs git synchronously for fixtures; returns trimmed stdout. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: ENV, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

export function write(root: string, rel: string, content: string | Buffer): void {
  const file = path.join(root, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
}

/** Writes one file in a worktree and commits everything there. */
export function commitIn(dir: string, rel: string, content: string | Buffer, message = `edit ${rel}`): void {
  write(dir, rel, content);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', message);
}

/**
 * The hooks of a git suite: git reads no global or system config (the suite's results must not
 * depend on the machine), every test gets a fresh Sandbox (handed to `use`), and after each test
 * the sandbox is removed and any environment a test changed (GIT_DIR, say) is put back.
 */
export function useGitSandbox(use: (sandbox: Sandbox) => void): void {
  let savedEnv: NodeJS.ProcessEnv = {};
  let isolatedEnv: NodeJS.ProcessEnv = {};
  let current: Sandbox | undefined;
  before(() => {
    savedEnv = { ...process.env };
    process.env.GIT_CONFIG_GLOBAL = '/dev/null';
    process.env.GIT_CONFIG_NOSYSTEM = '1';
    isolatedEnv = { ...process.env };
  });
  after(() => restoreEnv(savedEnv));
  beforeEach(() => {
    current = new Sandbox();
    // The code under test runs git with this process's environment: its HOME is the sandbox's own.
    const home = current.path('home');
    mkdirSync(home);
    process.env.HOME = home;
    process.env.XDG_CONFIG_HOME = path.join(home, '.config');
    use(current);
  });
  afterEach(() => {
    restoreEnv(isolatedEnv);
    current?.dispose();
    current = undefined;
  });
}

export class Sandbox {
  readonly dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'paddock-git-')));

  /** A repo `name` on branch main with the given files committed. */
  repo(files: Record<string, string | Buffer> = { 'README.md': 'hello\n' }, name = 'repo'): string {
    const repo = path.join(this.dir, name);
    mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'config', 'user.name', 'Test');
    git(repo, 'config', 'user.email', 'test@example.invalid');
    for (const [rel, content] of Object.entries(files)) write(repo, rel, content);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'base');
    return repo;
  }

  path(...parts: string[]): string {
    return path.join(this.dir, ...parts);
  }

  /** An agent's worktree of `repo` at `at` (the sandbox's `wt` unless given), on a new branch paddock/job1 from main. */
  agentWorktree(repo: string, at = this.path('wt')): string {
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/job1', at, 'main');
    return at;
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Deterministic pseudo-random bytes (binary content that git will not treat as text). */
export function binary(size: number, seed: number): Buffer {
  const buf = Buffer.alloc(size);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    buf[i] = x & 0xff;
  }
  buf[0] = 0; // a NUL byte makes git classify it as binary for sure
  return buf;
}
