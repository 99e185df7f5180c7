/**
 * Which copies the helper child makes (bug 214's review): only files under a mount point inside the
 * repository, all through one child per placement; every other file is copied in-process, as a child
 * for every start cost about 300 ms. Real repositories, a real bind mount (root only), real children:
 * spawn is only counted (wrapped, then called), never replaced.
 */
import * as assert from 'node:assert/strict';
// The module itself, not a namespace copy of it: its spawn is wrapped for the count.
// eslint-disable-next-line @typescript-eslint/no-require-imports
import childProcess = require('node:child_process');
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { placeWorktreeFiles, planWorktreeFiles } from '../../../../src/core/repoConfig/worktreeFiles';
import { mountsInRepo, underMount } from '../../../../src/core/repoConfig/mountPoints';
import { git } from '../coordinator/coordinatorFixture';

/** Places `copy` from `repo` into `worktree`, counting the `node -e` helper children spawned meanwhile. */
async function placeCounting(repo: string, worktree: string, copy: string[]): Promise<{ copied: number; helpers: number }> {
  const real = childProcess.spawn;
  let helpers = 0;
  const counting = ((command: string, args: readonly string[], ...rest: unknown[]) => {
    if (args?.[0] === '-e') helpers++;
    return (real as (...a: unknown[]) => childProcess.ChildProcess)(command, args, ...rest);
  }) as typeof childProcess.spawn;
  (childProcess as { spawn: typeof childProcess.spawn }).spawn = counting;
  try {
    const plan = await planWorktreeFiles({ repo, copy, link: [] });
    const result = await placeWorktreeFiles(plan!, worktree);
    return { copied: result.copied, helpers };
  } finally {
    (childProcess as { spawn: typeof childProcess.spawn }).spawn = real;
  }
}

describe('files under a mount point are copied by one helper child per placement, the rest in-process (bug 214)', function () {
  this.timeout(60_000);
  let root: string;
  let repo: string;
  let worktree: string;
  let mounted: string | null = null;

  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'paddock-mcp-')));
    repo = join(root, 'repo');
    mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    writeFileSync(join(repo, '.gitignore'), '.env\n/.data/\n/.cache/\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'init');
    writeFileSync(join(repo, '.env'), 'A=1\n');
    mkdirSync(join(repo, '.data'));
    for (let i = 0; i < 40; i++) writeFileSync(join(repo, '.data', `f${i}`), `${i}\n`);
    worktree = join(root, 'wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/x', worktree);
  });
  afterEach(() => {
    if (mounted !== null) childProcess.execFileSync('umount', ['-l', mounted]);
    mounted = null;
    rmSync(root, { recursive: true, force: true });
  });

  it('spawns no helper child when nothing copied is under a mount point', async () => {
    assert.deepEqual(await placeCounting(repo, worktree, ['/.env', '/.data/']), { copied: 41, helpers: 0 });
    assert.equal(readFileSync(join(worktree, '.data', 'f39'), 'utf8'), '39\n');
  });

  it('copies the files under a bind mount through exactly one child, however the copies interleave', async function () {
    if (process.platform !== 'linux' || process.getuid?.() !== 0) this.skip();
    const outside = join(root, 'outside');
    mkdirSync(join(outside, 'sub'), { recursive: true });
    for (let i = 0; i < 60; i++) writeFileSync(join(outside, 'sub', `c${i}`), `${i}\n`);
    mkdirSync(join(repo, '.cache'));
    childProcess.execFileSync('mount', ['--bind', outside, join(repo, '.cache')]);
    mounted = join(repo, '.cache');
    assert.deepEqual(await mountsInRepo(repo, repo), ['.cache']);
    assert.deepEqual(await placeCounting(repo, worktree, ['/.env', '/.data/', '/.cache/']), { copied: 101, helpers: 1 });
    assert.equal(readFileSync(join(worktree, '.cache', 'sub', 'c59'), 'utf8'), '59\n');
  });

  it('reads a mount point with a space as the kernel escapes it, and matches paths at or under it only', async function () {
    if (process.platform !== 'linux' || process.getuid?.() !== 0) this.skip();
    const outside = join(root, 'outside');
    mkdirSync(outside);
    mkdirSync(join(repo, 'a b'));
    childProcess.execFileSync('mount', ['--bind', outside, join(repo, 'a b')]);
    mounted = join(repo, 'a b');
    assert.deepEqual(await mountsInRepo(repo, repo), ['a b']);
    assert.equal(underMount('a b', ['a b']), true);
    assert.equal(underMount('a b/c/d', ['a b']), true);
    assert.equal(underMount('a bc/d', ['a b']), false);
    assert.equal(underMount('anything', ['']), true);
  });
});
