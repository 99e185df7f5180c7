/** Throw-away git repositories in temp dirs for the git tests. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const ENV = {
  ...process.env,
  LC_ALL: 'C',
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

/** Runs git synchronously for fixtures; returns trimmed stdout. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: ENV, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

export function write(root: string, rel: string, content: string | Buffer): void {
  const file = path.join(root, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
}

/**
 * The hooks of a git suite: git reads no global or system config (the suite's results must not
 * depend on the machine), every test gets a fresh Sandbox (handed to `use`), and after each test
 * the sandbox is removed and any environment a test changed (GIT_DIR, say) is put back.
 */
export function useGitSandbox(use: (sandbox: Sandbox) => void): void {
  const savedEnv = { ...process.env };
  let isolatedEnv: NodeJS.ProcessEnv = {};
  let current: Sandbox | undefined;
  before(() => {
    process.env.GIT_CONFIG_GLOBAL = '/dev/null';
    process.env.GIT_CONFIG_NOSYSTEM = '1';
    isolatedEnv = { ...process.env };
  });
  after(() => {
    process.env = savedEnv;
  });
  beforeEach(() => {
    current = new Sandbox();
    use(current);
  });
  afterEach(() => {
    process.env = { ...isolatedEnv };
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
