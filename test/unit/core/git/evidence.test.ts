import * as assert from 'node:assert/strict';
import { chmodSync, cpSync, utimesSync, existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { captureEvidence } from '../../../../src/core/git/evidence';
import { addWorktree } from '../../../../src/core/git/worktree';
import { Sandbox, useGitSandbox, binary, git, write } from './gitTestUtil';

/**
 * The repository told to look at less of a file's stat (`setting`); then a.txt is edited to the same
 * size and its mtime put back, a second after the index recorded it, in an index written well after
 * that time (no "racy" entry): only the ctime, or the file's content, tells the edit.
 */
function sameSizeEditTimeKept(wt: string, setting: [string, string]): void {
  git(wt, 'config', ...setting);
  const file = path.join(wt, 'a.txt');
  const past = new Date(1_700_000_000_000);
  utimesSync(file, past, past);
  git(wt, 'update-index', '-q', '--refresh');
  // git compares ctime's whole seconds: the edit comes in a later second than the entry's record.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1100);
  writeFileSync(file, 'LINE 1\nLINE 2\nLINE 3\n', { flag: 'r+' });
  utimesSync(file, past, past);
}

/** A change made in the agent's worktree, by kind. */
type Change = (wt: string) => void;

const BASE_FILES: Record<string, string | Buffer> = {
  'README.md': 'hello\n',
  'a.txt': 'line 1\nline 2\nline 3\n',
  'delete-me.txt': 'doomed\n',
  'script.sh': '#!/bin/sh\necho hi\n',
  'old-name.txt': 'a file that will be renamed, long enough for rename detection\n'.repeat(20),
  'staged.txt': 'before\n',
  'image.bin': binary(64 * 1024, 7),
  '.gitignore': '*.log\n',
  'nested/deep/file.txt': 'deep\n',
};

const CHANGES: Record<string, Change> = {
  modified: (wt) => write(wt, 'a.txt', 'line 1\nline two\nline 3\n'),
  deleted: (wt) => rmSync(path.join(wt, 'delete-me.txt')),
  untracked: (wt) => {
    write(wt, 'new.txt', 'brand new\n');
    write(wt, 'new-dir/inner/x.txt', 'nested new\n');
  },
  'binary (1 MB new, 64 KB modified)': (wt) => {
    write(wt, 'big.bin', binary(1024 * 1024, 42));
    write(wt, 'image.bin', binary(64 * 1024, 8));
  },
  'same-size edit in the second the index was written (racy git)': (wt) => {
    // The index and the file share one timestamp second, so git must re-read the file's content
    // even though size and mtime match: a capture that loses the index's own mtime would not.
    const file = path.join(wt, 'a.txt');
    const past = new Date(Math.floor(Date.now() / 1000) * 1000 - 5000);
    utimesSync(file, past, past);
    git(wt, 'update-index', '-q', '--refresh');
    utimesSync(git(wt, 'rev-parse', '--path-format=absolute', '--git-path', 'index'), past, past);
    write(wt, 'a.txt', 'LINE 1\nLINE 2\nLINE 3\n');
    utimesSync(file, past, past);
  },
  'skip-worktree and assume-unchanged files edited to the same size, their time kept (git trusts their stat)': (wt) => {
    // Each entry records a time long past, so no index is "racy" for it; the edit keeps size, inode and
    // time, and runs in the second the entry was recorded (git compares ctime's seconds only): git's
    // stat check matches, and only reading the file shows the change.
    const past = new Date(1_700_000_000_000);
    for (const [file, flag, edited] of [
      ['a.txt', '--skip-worktree', 'LINE 1\nLINE 2\nLINE 3\n'],
      ['nested/deep/file.txt', '--assume-unchanged', 'DEEP\n'],
    ]) {
      const full = path.join(wt, file);
      utimesSync(full, past, past);
      git(wt, 'update-index', '-q', '--refresh');
      git(wt, 'update-index', flag, file);
      writeFileSync(full, edited, { flag: 'r+' });
      utimesSync(full, past, past);
    }
  },
  'edits in a repository with core.ignoreStat (git flags every entry it writes assume-unchanged)': (wt) => {
    git(wt, 'config', 'core.ignoreStat', 'true');
    git(wt, 'update-index', '-q', '--really-refresh');
    write(wt, 'a.txt', 'edited where git was told to trust the index\n');
    rmSync(path.join(wt, 'nested/deep/file.txt'), { force: true });
  },
  'a same-size edit with its old mtime put back (cp -p, rsync -t), core.trustctime=false': (wt) => sameSizeEditTimeKept(wt, ['core.trustctime', 'false']),
  'a same-size edit with its old mtime put back, core.checkStat=minimal': (wt) => sameSizeEditTimeKept(wt, ['core.checkStat', 'minimal']),
  'mode change': (wt) => chmodSync(path.join(wt, 'script.sh'), 0o755),
  'rename (on disk)': (wt) => renameSync(path.join(wt, 'old-name.txt'), path.join(wt, 'new-name.txt')),
  'rename (git mv, staged)': (wt) => git(wt, 'mv', 'old-name.txt', 'moved-name.txt'),
  staged: (wt) => {
    write(wt, 'staged.txt', 'after\n');
    git(wt, 'add', 'staged.txt');
  },
  'staged then edited again': (wt) => {
    write(wt, 'staged.txt', 'staged version\n');
    git(wt, 'add', 'staged.txt');
    write(wt, 'staged.txt', 'on-disk version\n');
  },
  'leftover index.lock': (wt) => {
    write(wt, 'a.txt', 'changed while git crashed\n');
    writeFileSync(git(wt, 'rev-parse', '--path-format=absolute', '--git-path', 'index.lock'), '');
  },
  'agent commits on the branch': (wt) => {
    write(wt, 'committed.txt', 'agent work\n');
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '-m', 'agent 1');
    write(wt, 'a.txt', 'agent edit\n');
    git(wt, 'commit', '-q', '-am', 'agent 2');
    write(wt, 'after-commit.txt', 'uncommitted on top\n');
  },
  'ignored file (not captured)': (wt) => {
    write(wt, 'debug.log', 'noise\n');
    write(wt, 'a.txt', 'with an ignored neighbour\n');
  },
};

describe('git/captureEvidence', function () {
  this.timeout(60_000);
  let sb!: Sandbox;
  useGitSandbox((fresh) => (sb = fresh));

  /** Tree hash of the files on disk in `wt`, computed in an unrelated scratch repo (independent of the code under test). */
  function treeOfDisk(wt: string): string {
    const copy = sb.path(`disk-copy-${Math.random().toString(36).slice(2)}`);
    cpSync(wt, copy, { recursive: true, filter: (src) => path.basename(src) !== '.git' });
    git(copy, 'init', '-q');
    git(copy, 'add', '-A');
    return git(copy, 'write-tree');
  }

  async function roundTrip(changes: Change[], jobId: string) {
    const repo = sb.repo(BASE_FILES);
    const baseSha = git(repo, 'rev-parse', 'HEAD');
    const wt = sb.path('wt', jobId);
    await addWorktree(repo, { path: wt, branch: `paddock/${jobId}`, baseSha });
    for (const change of changes) change(wt);

    const indexPath = git(wt, 'rev-parse', '--path-format=absolute', '--git-path', 'index');
    const indexBefore = readFileSync(indexPath);
    const lockExisted = existsSync(`${indexPath}.lock`);
    const expectedTree = treeOfDisk(wt);
    const headBefore = git(wt, 'rev-parse', 'HEAD');
    const patchPath = sb.path('jobs', jobId, 'evidence', 'snapshot.patch');

    const ev = await captureEvidence({ repo, worktree: wt, jobId, patchPath, baseSha });

    // The snapshot ref holds exactly what was on disk, on top of the agent's HEAD.
    assert.equal(ev.snapshotRef, `refs/paddock/snapshots/${jobId}`);
    assert.equal(ev.headSha, headBefore);
    assert.equal(git(repo, 'rev-parse', ev.snapshotRef), ev.snapshotSha);
    assert.equal(git(repo, 'rev-parse', `${ev.snapshotRef}^`), headBefore);
    const snapTree = git(repo, 'rev-parse', `${ev.snapshotRef}^{tree}`);
    assert.equal(snapTree, expectedTree, 'snapshot tree = files on disk');

    // The worktree's real index and its lock are untouched.
    assert.deepEqual(readFileSync(indexPath), indexBefore, 'the real index is unchanged');
    assert.equal(existsSync(`${indexPath}.lock`), lockExisted);

    // The patch applied to the base in a fresh worktree reproduces the same tree.
    assert.equal(ev.patch, patchPath);
    const fresh = sb.path('fresh', jobId);
    git(repo, 'worktree', 'add', '-q', '--detach', fresh, baseSha);
    if (statSync(patchPath).size > 0) git(fresh, 'apply', '--index', '--binary', patchPath);
    assert.equal(git(fresh, 'write-tree'), snapTree, 'base + patch = snapshot tree');
    assert.equal(ev.fileCount, git(repo, 'diff-tree', '-r', '--name-only', '--no-renames', baseSha, snapTree).split('\n').filter(Boolean).length);
    return { repo, wt, ev, snapTree, baseSha };
  }

  for (const [kind, change] of Object.entries(CHANGES)) {
    it(`round-trips: ${kind}`, async () => {
      const jobId = `j-${kind.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`.slice(0, 40);
      const { ev } = await roundTrip([change], jobId);
      assert.ok(ev.fileCount > 0);
    });
  }

  it('round-trips every kind of change at once', async () => {
    // Commits first (a held index.lock would stop them), the lock last; one rename and one staging style.
    const kinds = Object.keys(CHANGES).filter((k) => k !== 'rename (git mv, staged)' && k !== 'staged then edited again');
    const ordered = ['agent commits on the branch', ...kinds.filter((k) => k !== 'agent commits on the branch' && k !== 'leftover index.lock'), 'leftover index.lock'];
    const all = ordered.map((k) => CHANGES[k]);
    const { snapTree } = await roundTrip(all, 'j-all');
    assert.match(git(sb.path('repo'), 'ls-tree', '-r', snapTree, 'script.sh'), /^100755 /);
    assert.equal(git(sb.path('repo'), 'ls-tree', '-r', '--name-only', snapTree, 'debug.log'), '', 'ignored files are not captured');
  });

  it('captures an unchanged worktree as an empty patch', async () => {
    const { ev, snapTree, baseSha } = await roundTrip([], 'j-clean');
    assert.equal(ev.fileCount, 0);
    assert.equal(statSync(ev.patch).size, 0);
    assert.equal(snapTree, git(sb.path('repo'), 'rev-parse', `${baseSha}^{tree}`));
  });

  it('a second capture moves the ref and keeps the first in its reflog', async () => {
    const { repo, wt, ev } = await roundTrip([CHANGES.modified], 'j-twice');
    write(wt, 'later.txt', 'more work\n');
    const again = await captureEvidence({ repo, worktree: wt, jobId: 'j-twice', patchPath: ev.patch, baseSha: git(repo, 'rev-parse', 'main') });
    assert.notEqual(again.snapshotSha, ev.snapshotSha);
    assert.match(git(repo, 'reflog', 'show', '--format=%H', again.snapshotRef), new RegExp(ev.snapshotSha));
    assert.match(readFileSync(again.patch, 'utf8'), /later\.txt/);
  });

  it('rejects a job id that cannot name a ref, and a folder that is not a worktree', async () => {
    const repo = sb.repo();
    const sha = git(repo, 'rev-parse', 'HEAD');
    await assert.rejects(
      captureEvidence({ repo, worktree: repo, jobId: 'bad..id', patchPath: sb.path('p.patch'), baseSha: sha }),
      /cannot name a git ref/,
    );
    const plain = sb.path('plain');
    write(plain, 'x.txt', 'x\n');
    await assert.rejects(
      captureEvidence({ repo, worktree: plain, jobId: 'ok', patchPath: sb.path('p.patch'), baseSha: sha }),
      /Could not capture .*plain: it is not a git worktree/,
    );
  });
});
