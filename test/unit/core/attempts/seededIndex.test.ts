/**
 * `worktreeTree` seeded from a copy of the worktree's own index (seededIndex.ts): the tree is the
 * worktree's full state on disk, exactly as through a fresh index, whatever the own index claims:
 * entries flagged assume-unchanged or skip-worktree, an edit racily clean (same size, within the
 * index's own tick), and one git's whole-second stat compare misses. Real git repositories.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { worktreeTree } from '../../../../src/core/attempts/attemptTree';
import { staleEntries } from '../../../../src/core/attempts/seededIndex';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8', env: { ...process.env, GIT_INDEX_FILE: undefined } });
}

/** The tree of the worktree's state through a fresh index (what worktreeTree did before). */
function freshTree(repo: string): string {
  const index = join(tmpdir(), `pdk-fresh-${process.pid}-${Date.now()}.index`);
  const env = { ...process.env, GIT_INDEX_FILE: index };
  try {
    execFileSync('git', ['read-tree', 'HEAD'], { cwd: repo, env });
    execFileSync('git', ['add', '-A', '--', '.'], { cwd: repo, env });
    return execFileSync('git', ['write-tree'], { cwd: repo, env, encoding: 'utf8' }).trim();
  } finally {
    rmSync(index, { force: true });
  }
}

const blobOf = (repo: string, tree: string, file: string) => git(repo, 'rev-parse', `${tree}:${file}`).trim();
const hashOf = (repo: string, text: string) => execFileSync('git', ['hash-object', '--stdin'], { cwd: repo, input: text, encoding: 'utf8' }).trim();

describe('core/attempts/seededIndex (worktreeTree from a copy of the own index)', function () {
  this.timeout(20_000);
  let repo: string;
  beforeEach(() => {
    repo = mkdtempSync(join(tmpdir(), 'pdk-si-'));
    git(repo, 'init', '-q', '-b', 'main');
    for (const f of ['a.txt', 'b.txt', 'c.txt', 'd.txt']) writeFileSync(join(repo, f), `${f}\n`);
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'init');
  });
  afterEach(() => rmSync(repo, { recursive: true, force: true }));

  it('writes the same tree as a fresh index: staged, modified, deleted, untracked', async () => {
    writeFileSync(join(repo, 'a.txt'), 'staged\n');
    git(repo, 'add', 'a.txt');
    writeFileSync(join(repo, 'a.txt'), 'staged then changed\n');
    writeFileSync(join(repo, 'b.txt'), 'modified\n');
    rmSync(join(repo, 'c.txt'));
    writeFileSync(join(repo, 'new.txt'), 'untracked\n');
    writeFileSync(join(repo, 'added.txt'), 'added then removed\n');
    git(repo, 'add', 'added.txt');
    rmSync(join(repo, 'added.txt'));
    assert.equal((await worktreeTree(repo)).tree, freshTree(repo));
  });

  it('sees edits to files the own index flags assume-unchanged or skip-worktree', async () => {
    writeFileSync(join(repo, 'a.txt'), 'edited though assumed unchanged\n');
    writeFileSync(join(repo, 'b.txt'), 'edited though skipped\n');
    git(repo, 'update-index', '--assume-unchanged', 'a.txt');
    git(repo, 'update-index', '--skip-worktree', 'b.txt');
    assert.equal(git(repo, 'status', '--porcelain').trim(), '', 'git itself is blind to both');
    const { tree } = await worktreeTree(repo);
    assert.equal(blobOf(repo, tree, 'a.txt'), hashOf(repo, 'edited though assumed unchanged\n'));
    assert.equal(blobOf(repo, tree, 'b.txt'), hashOf(repo, 'edited though skipped\n'));
  });

  it('sees a same-size edit made within the tick the own index was written in (racily clean)', async () => {
    // Added and edited within one second (tried again when a second boundary falls between).
    for (let attempt = 0; ; attempt++) {
      const from = Math.floor(Date.now() / 1000);
      writeFileSync(join(repo, 'd.txt'), 'first version\n');
      git(repo, 'add', 'd.txt');
      writeFileSync(join(repo, 'd.txt'), 'other version\n');
      const index = statSync(join(repo, '.git', 'index'));
      if (Math.floor(index.mtimeMs / 1000) === from && Math.floor(Date.now() / 1000) === from) break;
      assert.ok(attempt < 5, 'could not stay within one second');
    }
    await new Promise((r) => setTimeout(r, 1100));
    const { tree } = await worktreeTree(repo);
    assert.equal(blobOf(repo, tree, 'd.txt'), hashOf(repo, 'other version\n'));
  });

  it('sees a same-size edit that put the old mtime back within the second git looked (cp -p, rsync -t), which git comparing whole seconds misses', async () => {
    const old = new Date(Date.now() - 3600_000);
    for (let attempt = 0; ; attempt++) {
      const from = Math.floor(Date.now() / 1000);
      writeFileSync(join(repo, 'd.txt'), 'first version\n');
      utimesSync(join(repo, 'd.txt'), old, old);
      git(repo, 'add', 'd.txt');
      writeFileSync(join(repo, 'd.txt'), 'other version\n');
      utimesSync(join(repo, 'd.txt'), old, old);
      if (Math.floor(Date.now() / 1000) === from) break;
      assert.ok(attempt < 5, 'could not stay within one second');
    }
    // A git built without USE_NSEC compares whole seconds and sees no change; the copy's entry is dropped whatever the build.
    assert.deepEqual(await staleEntries(repo, join(repo, '.git', 'index')), ['d.txt']);
    const { tree } = await worktreeTree(repo);
    assert.equal(blobOf(repo, tree, 'd.txt'), hashOf(repo, 'other version\n'));
  });
});
