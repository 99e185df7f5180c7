/**
 * Restore brings back the worktree's state, not only its content (bug 53):
 * intent-to-add entries, assume-unchanged and skip-worktree flags, a detached
 * HEAD or a branch the agent switched to, a sparse checkout, hard links. Each
 * case captures, removes the worktree as cleanup does, restores from the
 * evidence alone and compares with what git and the file system said before:
 * `status --porcelain=v2`, `ls-files -v` and `--debug` flags, HEAD, inodes.
 * Evidence written before these were recorded still restores as it did.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, linkSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { captureEvidence, privateGitDir, type CaptureOptions } from '../../../../src/core/git/evidence';
import { readManifest } from '../../../../src/core/git/evidenceManifest';
import { restoreWorktree, type RestoreResult } from '../../../../src/core/git/restore';
import { removeWorktree } from '../../../../src/core/git/worktree';
import { Sandbox, git, useGitSandbox, write } from './gitTestUtil';
import { assertSameState, treeState } from './treeState';

/** What git says of a worktree's state: status (with untracked and ignored files), index tags and flags, HEAD. */
function gitState(dir: string): { status: string; tags: string; flags: string; head: string; symbolic: string } {
  // --debug's flags without its stat data (a restored file is a new file).
  const flags = git(dir, 'ls-files', '--debug')
    .split('\n')
    .filter((l) => !l.startsWith('  ') || l.includes('flags:'))
    .map((l) => l.replace(/^\s*size: \d+\s*/, ''))
    .join('\n');
  return {
    status: git(dir, 'status', '--porcelain=v2', '--branch', '--untracked-files=all', '--ignored'),
    tags: git(dir, 'ls-files', '-v'),
    flags,
    head: git(dir, 'rev-parse', 'HEAD'),
    symbolic: git(dir, 'rev-parse', '--symbolic-full-name', 'HEAD'),
  };
}

describe('git: restore gives back the worktree as the agent left it (its state, not only its files)', function () {
  this.timeout(120_000);
  let sb!: Sandbox;
  let repo: string;
  let base: string;
  let wt: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'README.md': 'hello\n', 'c.txt': 'c before\n', 'd.txt': 'd before\n', 'docs/guide.md': 'guide\n', 'src/app.ts': 'app\n', '.gitignore': '.env\n' });
    base = git(repo, 'rev-parse', 'main');
    wt = sb.agentWorktree(repo);
  });

  const evidenceDir = () => sb.path('store', 'evidence');

  function options(): CaptureOptions {
    return { repo, worktree: wt, jobId: 'job1', patchPath: path.join(evidenceDir(), 'snapshot.patch'), baseSha: base, branch: 'paddock/job1' };
  }

  async function captureAndRemove(): Promise<void> {
    await captureEvidence(options());
    await removeWorktree(repo, wt);
    assert.equal(existsSync(wt), false);
  }

  function restore(target = sb.path('restored')): Promise<RestoreResult> {
    return restoreWorktree({ repo, snapshotRef: 'refs/paddock/snapshots/job1', evidenceDir: evidenceDir(), target, branch: 'paddock/job1', branchDeletedByCleanup: true });
  }

  /** Capture, remove, restore; the restored worktree must say what the agent's said, with the same files. */
  async function roundTrip(): Promise<RestoreResult> {
    const before = gitState(wt);
    const files = treeState(wt);
    await captureAndRemove();
    const result = await restore();
    assert.deepEqual(gitState(result.path), before);
    assertSameState(treeState(result.path), files);
    return result;
  }

  it('an intent-to-add entry (git add -N) comes back intent-to-add, not untracked', async () => {
    write(wt, 'planned.ts', 'export const planned = 1;\n');
    git(wt, 'add', '-N', 'planned.ts');
    write(wt, 'c.txt', 'c edited\n');
    assert.match(git(wt, 'status', '--porcelain=v2'), /^1 \.A .* planned\.ts$/m, 'the fixture is an intent-to-add entry');
    const result = await roundTrip();
    assert.match(git(result.path, 'status', '--porcelain=v2'), /^1 \.A .* planned\.ts$/m);
    assert.deepEqual(result.problems, []);
  });

  it('assume-unchanged and skip-worktree flags come back, edited files under them included', async () => {
    git(wt, 'update-index', '--assume-unchanged', 'c.txt');
    git(wt, 'update-index', '--skip-worktree', 'd.txt');
    write(wt, 'c.txt', 'c edited under assume-unchanged\n');
    write(wt, 'd.txt', 'd edited under skip-worktree\n');
    const result = await roundTrip();
    assert.match(git(result.path, 'ls-files', '-v', 'c.txt'), /^h c\.txt$/);
    assert.match(git(result.path, 'ls-files', '-v', 'd.txt'), /^S d\.txt$/);
    assert.equal(readFileSync(path.join(result.path, 'd.txt'), 'utf8'), 'd edited under skip-worktree\n');
  });

  it('the flags of an index git writes as version 4 (prefix-compressed names) come back', async () => {
    git(wt, 'update-index', '--index-version', '4');
    git(wt, 'update-index', '--assume-unchanged', 'docs/guide.md');
    write(wt, 'docs/new.md', 'new\n');
    git(wt, 'add', '-N', 'docs/new.md');
    await roundTrip();
  });

  it('a detached HEAD comes back detached at its commit, and says so', async () => {
    git(wt, '-c', 'user.name=A', '-c', 'user.email=a@b.c', 'commit', '-q', '--allow-empty', '-m', 'on the branch');
    git(wt, 'checkout', '-q', '--detach', 'HEAD~1');
    write(wt, 'c.txt', 'edited while detached\n');
    const result = await roundTrip();
    assert.equal(git(result.path, 'rev-parse', '--symbolic-full-name', 'HEAD'), 'HEAD');
    assert.match(result.branchNote, /^detached at [0-9a-f]{12}, as the agent left it$/);
    assert.deepEqual(result.problems, []);

    // The job's branch deleted since (as a cleanup may): re-created at HEAD's commit and checked out, so
    // the agent can still be landed (merge, pull request and update need it); said so.
    const detachedAt = git(result.path, 'rev-parse', 'HEAD');
    git(repo, 'branch', '-D', 'paddock/job1');
    const again = await restore(sb.path('restored-again'));
    assert.equal(git(again.path, 'symbolic-ref', 'HEAD'), 'refs/heads/paddock/job1');
    assert.equal(git(repo, 'rev-parse', 'paddock/job1'), detachedAt);
    assert.deepEqual(again.problems, ["HEAD was detached; it is on the agent's branch paddock/job1 now, re-created at that commit (the cleanup had deleted it), so the agent can still be landed"]);
  });

  it('a branch the agent switched to comes back checked out; detached at its commit, said so, when it is checked out elsewhere', async () => {
    git(wt, 'checkout', '-q', '-b', 'feature/other');
    git(wt, '-c', 'user.name=A', '-c', 'user.email=a@b.c', 'commit', '-q', '--allow-empty', '-m', 'on the other branch');
    write(wt, 'c.txt', 'edited on the other branch\n');
    const head = git(wt, 'rev-parse', 'HEAD');
    const result = await roundTrip();
    assert.equal(git(result.path, 'symbolic-ref', 'HEAD'), 'refs/heads/feature/other');
    assert.equal(result.branchNote, 'on branch feature/other');

    // Checked out by the first restore: a second one is detached at the commit, and says so.
    const again = await restore(sb.path('restored-again'));
    assert.equal(git(again.path, 'rev-parse', 'HEAD'), head);
    assert.equal(git(again.path, 'rev-parse', '--symbolic-full-name', 'HEAD'), 'HEAD');
    assert.match(again.branchNote, /^detached at [0-9a-f]{12} \(branch feature\/other is checked out elsewhere\)$/);
  });

  /** Who commits, merges and rebases in these cases (the sandbox's git has no identity). */
  const WHO = ['-c', 'user.name=A', '-c', 'user.email=a@b.c', '-c', 'core.editor=true'];

  /** A branch `theirs` from main changing c.txt and d.txt, and a commit on the agent's changing c.txt; returns theirs' tip. */
  function conflictingLines(): string {
    write(wt, 'c.txt', 'c ours\n');
    git(wt, ...WHO, 'commit', '-q', '-am', 'ours');
    git(wt, 'checkout', '-q', '-b', 'theirs', 'main');
    write(wt, 'c.txt', 'c theirs\n');
    write(wt, 'd.txt', 'd theirs\n');
    git(wt, ...WHO, 'commit', '-q', '-am', 'theirs');
    git(wt, 'checkout', '-q', 'paddock/job1');
    return git(wt, 'rev-parse', 'theirs');
  }

  it('a merge stopped on a conflict comes back in progress: its three stages, MERGE_HEAD and MERGE_MSG, and git commit makes the merge', async () => {
    const theirs = conflictingLines();
    assert.throws(() => git(wt, ...WHO, 'merge', '-q', 'theirs'));
    write(wt, 'e.txt', 'staged while merging\n');
    git(wt, 'add', 'e.txt');
    const message = readFileSync(path.join(privateGitDir(wt), 'MERGE_MSG'), 'utf8');
    const stages = git(wt, 'ls-files', '-s', '-u');
    const result = await roundTrip();
    assert.equal(git(result.path, 'ls-files', '-s', '-u'), stages);
    assert.equal(git(result.path, 'rev-parse', 'MERGE_HEAD'), theirs);
    assert.equal(readFileSync(path.join(privateGitDir(result.path), 'MERGE_MSG'), 'utf8'), message);
    assert.deepEqual(result.problems, []);
    write(result.path, 'c.txt', 'c resolved\n');
    git(result.path, 'add', 'c.txt');
    git(result.path, ...WHO, 'commit', '-q', '--no-edit');
    assert.equal(git(result.path, 'rev-parse', 'HEAD^2'), theirs, 'the commit is the merge the agent had begun');
  });

  it('a rebase stopped on a conflict comes back in progress, with its todo list, and rebase --continue finishes it', async () => {
    conflictingLines();
    write(wt, 'f.txt', 'f\n');
    git(wt, 'add', 'f.txt');
    git(wt, ...WHO, 'commit', '-q', '-m', 'after ours');
    assert.throws(() => git(wt, ...WHO, 'rebase', 'theirs'));
    const result = await roundTrip();
    assert.match(git(result.path, 'status'), /rebase in progress/);
    write(result.path, 'c.txt', 'c resolved\n');
    git(result.path, 'add', 'c.txt');
    git(result.path, ...WHO, 'rebase', '--continue');
    assert.equal(git(result.path, 'log', '--format=%s', '-3'), 'after ours\nours\ntheirs');
    assert.equal(git(result.path, 'rev-parse', '--abbrev-ref', 'HEAD'), 'paddock/job1', 'the rebase ends on the branch it was rebasing');
  });

  /** Capture and remove; the objects no ref keeps then go (`gc --prune=now`); `sha` must survive. */
  async function captureRemoveAndCollect(sha: string): Promise<void> {
    await captureAndRemove();
    git(repo, 'reflog', 'expire', '--expire=now', '--all');
    git(repo, 'gc', '-q', '--prune=now');
    assert.equal(git(repo, 'cat-file', '-t', sha), 'commit', 'the autostash survives gc');
  }

  it("a rebase --autostash stopped on a conflict keeps the uncommitted work it put aside, and --continue gives it back", async () => {
    conflictingLines();
    write(wt, 'README.md', 'uncommitted, only in the autostash\n');
    assert.throws(() => git(wt, ...WHO, 'rebase', '--autostash', 'theirs'));
    const autostash = readFileSync(path.join(privateGitDir(wt), 'rebase-merge', 'autostash'), 'utf8').trim();
    assert.equal(readFileSync(path.join(wt, 'README.md'), 'utf8'), 'hello\n', 'the fixture: the edit is only in the autostash');
    const before = gitState(wt);
    await captureRemoveAndCollect(autostash);
    const result = await restore();
    assert.deepEqual(gitState(result.path), before);
    write(result.path, 'c.txt', 'c resolved\n');
    git(result.path, 'add', 'c.txt');
    git(result.path, ...WHO, 'rebase', '--continue');
    assert.equal(readFileSync(path.join(result.path, 'README.md'), 'utf8'), 'uncommitted, only in the autostash\n');
  });

  it("a merge --autostash stopped on a conflict keeps the uncommitted work it put aside (MERGE_AUTOSTASH), and the commit gives it back", async () => {
    conflictingLines();
    write(wt, 'README.md', 'uncommitted, only in the autostash\n');
    assert.throws(() => git(wt, ...WHO, 'merge', '--autostash', 'theirs'));
    const autostash = readFileSync(path.join(privateGitDir(wt), 'MERGE_AUTOSTASH'), 'utf8').trim();
    const before = gitState(wt);
    await captureRemoveAndCollect(autostash);
    const result = await restore();
    assert.deepEqual(gitState(result.path), before);
    write(result.path, 'c.txt', 'c resolved\n');
    git(result.path, 'add', 'c.txt');
    git(result.path, ...WHO, 'commit', '-q', '--no-edit');
    assert.equal(readFileSync(path.join(result.path, 'README.md'), 'utf8'), 'uncommitted, only in the autostash\n');
  });

  it("the tree AUTO_MERGE names (a merge stopped on a conflict, git 2.42 on) is kept through gc with the file that names it", async () => {
    conflictingLines();
    assert.throws(() => git(wt, ...WHO, 'merge', '-q', 'theirs'));
    // What git 2.42 on writes there: the merge's result with the conflict markers, a tree nothing else names.
    const marked = git(wt, 'hash-object', '-w', 'c.txt');
    const tree = execFileSync('git', ['mktree'], { cwd: wt, input: `100644 blob ${marked}\tc.txt\n`, encoding: 'utf8' }).trim();
    writeFileSync(path.join(privateGitDir(wt), 'AUTO_MERGE'), `${tree}\n`);
    await captureAndRemove();
    git(repo, 'reflog', 'expire', '--expire=now', '--all');
    git(repo, 'gc', '-q', '--prune=now');
    assert.equal(git(repo, 'cat-file', '-t', tree), 'tree', 'the tree AUTO_MERGE names survives gc');
    const result = await restore();
    assert.equal(git(result.path, 'rev-parse', 'AUTO_MERGE'), tree);
    assert.equal(git(result.path, 'cat-file', 'blob', 'AUTO_MERGE:c.txt'), readFileSync(path.join(result.path, 'c.txt'), 'utf8').trim());
  });

  it('a conflict stage no commit holds (checkout -m of a binary file with local edits) is kept through gc and comes back', async () => {
    write(wt, 'b.bin', Buffer.from('bin\0one'));
    git(wt, 'add', 'b.bin');
    git(wt, ...WHO, 'commit', '-q', '-m', 'binary');
    git(wt, 'checkout', '-q', '-b', 'other');
    write(wt, 'b.bin', Buffer.from('bin\0other'));
    git(wt, ...WHO, 'commit', '-q', '-am', 'other');
    git(wt, 'checkout', '-q', 'paddock/job1');
    write(wt, 'b.bin', Buffer.from('bin\0only the agent had this'));
    git(wt, 'checkout', '-q', '-m', 'other');
    const stages = git(wt, 'ls-files', '-s', '-u');
    const local = git(wt, 'ls-files', '-s', '-u').split('\n').find((l) => l.endsWith(' 3\tb.bin'))!.split(' ')[1]!;
    assert.equal(git(repo, 'cat-file', '-p', local), 'bin\0only the agent had this');
    await captureAndRemove();
    git(repo, 'reflog', 'expire', '--expire=now', '--all');
    git(repo, 'gc', '-q', '--prune=now');
    assert.equal(git(repo, 'cat-file', '-t', local), 'blob', 'the only copy of the local edit survives gc');
    const result = await restore();
    assert.equal(git(result.path, 'ls-files', '-s', '-u'), stages);
    assert.deepEqual(result.problems, []);
  });

  it("a bisect stopped half-way comes back with its refs and log, and goes on", async () => {
    for (let i = 1; i <= 6; i++) {
      write(wt, 'n.txt', `${i}\n`);
      git(wt, 'add', 'n.txt');
      git(wt, ...WHO, 'commit', '-q', '-m', `c${i}`);
    }
    git(wt, 'bisect', 'start', 'HEAD', 'HEAD~5');
    git(wt, 'bisect', 'bad');
    const log = git(wt, 'bisect', 'log');
    const refs = git(wt, 'for-each-ref', 'refs/bisect/');
    const result = await roundTrip();
    assert.equal(git(result.path, 'bisect', 'log'), log);
    assert.equal(git(result.path, 'for-each-ref', 'refs/bisect/'), refs);
    assert.match(git(result.path, 'bisect', 'good'), /Bisecting|is the first bad commit/);
  });

  /** The cleanup deleted the agent's branch (`cleanup --delete-branch`, or merged elsewhere) after the capture. */
  async function captureRemoveDeletingBranch(): Promise<void> {
    await captureAndRemove();
    git(repo, 'branch', '-D', 'paddock/job1');
  }

  it("a rebase stopped on a conflict whose branch the cleanup deleted: the branch comes back at its old tip, HEAD detached, and rebase --continue finishes it", async () => {
    conflictingLines();
    write(wt, 'f.txt', 'f\n');
    git(wt, 'add', 'f.txt');
    git(wt, ...WHO, 'commit', '-q', '-m', 'after ours');
    const tip = git(wt, 'rev-parse', 'paddock/job1');
    assert.throws(() => git(wt, ...WHO, 'rebase', 'theirs'));
    const head = git(wt, 'rev-parse', 'HEAD');
    await captureRemoveDeletingBranch();
    const result = await restore();
    assert.equal(git(result.path, 'rev-parse', '--symbolic-full-name', 'HEAD'), 'HEAD', 'HEAD detached, as the rebase left it');
    assert.equal(git(result.path, 'rev-parse', 'HEAD'), head);
    assert.equal(git(repo, 'rev-parse', 'paddock/job1'), tip, 'the branch at the tip the rebase expects');
    assert.deepEqual(result.problems, [`the branch paddock/job1, which the cleanup had deleted, is re-created at ${tip.slice(0, 12)}, where the rebase stopped half-way expects it; HEAD is detached, as the agent left it`]);
    write(result.path, 'c.txt', 'c resolved\n');
    git(result.path, 'add', 'c.txt');
    git(result.path, ...WHO, 'rebase', '--continue');
    assert.equal(git(result.path, 'log', '--format=%s', '-3'), 'after ours\nours\ntheirs');
    assert.equal(git(result.path, 'rev-parse', '--abbrev-ref', 'HEAD'), 'paddock/job1');
  });

  it("a bisect stopped half-way whose branch the cleanup deleted: the branch comes back at its tip, not the midpoint, and bisect reset returns there", async () => {
    for (let i = 1; i <= 6; i++) {
      write(wt, 'n.txt', `${i}\n`);
      git(wt, 'add', 'n.txt');
      git(wt, ...WHO, 'commit', '-q', '-m', `c${i}`);
    }
    const tip = git(wt, 'rev-parse', 'HEAD');
    git(wt, 'bisect', 'start', 'HEAD', 'HEAD~5');
    git(wt, 'bisect', 'bad');
    const midpoint = git(wt, 'rev-parse', 'HEAD');
    assert.notEqual(midpoint, tip, 'the fixture: HEAD is at a midpoint');
    await captureRemoveDeletingBranch();
    const result = await restore();
    assert.equal(git(result.path, 'rev-parse', '--symbolic-full-name', 'HEAD'), 'HEAD');
    assert.equal(git(result.path, 'rev-parse', 'HEAD'), midpoint);
    assert.equal(git(repo, 'rev-parse', 'paddock/job1'), tip);
    git(result.path, 'bisect', 'reset');
    assert.equal(git(result.path, 'symbolic-ref', 'HEAD'), 'refs/heads/paddock/job1');
    assert.equal(git(result.path, 'rev-parse', 'HEAD'), tip);
  });

  it('a sparse checkout comes back sparse: its patterns, its config, and the files it left out stay out', async () => {
    git(wt, 'sparse-checkout', 'set', '--no-cone', '/*', '!/docs/');
    assert.equal(existsSync(path.join(wt, 'docs/guide.md')), false, 'the fixture leaves docs/ out');
    write(wt, 'src/app.ts', 'app edited in the sparse checkout\n');
    const patterns = readFileSync(path.join(privateGitDir(wt), 'info', 'sparse-checkout'), 'utf8');
    const result = await roundTrip();
    assert.equal(existsSync(path.join(result.path, 'docs/guide.md')), false);
    assert.equal(readFileSync(path.join(privateGitDir(result.path), 'info', 'sparse-checkout'), 'utf8'), patterns);
    assert.equal(git(result.path, 'config', '--worktree', 'core.sparseCheckout'), 'true');
    assert.equal(git(result.path, 'sparse-checkout', 'list'), '/*\n!/docs/');
    // git itself keeps it sparse from there.
    git(result.path, 'sparse-checkout', 'reapply');
    assert.equal(existsSync(path.join(result.path, 'docs/guide.md')), false);
  });

  it('hard links inside the worktree come back as one file with two names', async () => {
    write(wt, 'shared/data.bin', 'one inode\n');
    linkSync(path.join(wt, 'shared/data.bin'), path.join(wt, 'shared/alias.bin'));
    linkSync(path.join(wt, 'c.txt'), path.join(wt, 'c-link.txt'));
    write(wt, '.env', 'ignored, linked\n');
    linkSync(path.join(wt, '.env'), path.join(wt, 'env-copy'));
    const result = await roundTrip();
    for (const [a, b] of [['shared/data.bin', 'shared/alias.bin'], ['c.txt', 'c-link.txt'], ['.env', 'env-copy']]) {
      assert.equal(statSync(path.join(result.path, a)).ino, statSync(path.join(result.path, b)).ino, `${a} and ${b}`);
    }
    writeFileSync(path.join(result.path, 'c-link.txt'), 'through one name\n');
    assert.equal(readFileSync(path.join(result.path, 'c.txt'), 'utf8'), 'through one name\n');
    assert.deepEqual(result.problems, []);
  });

  it('says what it cannot put back instead of differing silently (an intent-to-add file deleted before cleanup)', async () => {
    write(wt, 'planned.ts', 'x\n');
    git(wt, 'add', '-N', 'planned.ts');
    rmSync(path.join(wt, 'planned.ts'));
    await captureAndRemove();
    const result = await restore();
    assert.equal(result.problems.length, 1);
    assert.match(result.problems[0], /git add -N had no file at cleanup .*planned\.ts/);
  });

  it('evidence from before the state was recorded restores as it did: on the job branch, no flags', async () => {
    git(wt, 'checkout', '-q', '--detach');
    git(wt, 'update-index', '--skip-worktree', 'd.txt');
    await captureAndRemove();
    const inventory = path.join(evidenceDir(), 'inventory.json');
    const manifest = JSON.parse(readFileSync(inventory, 'utf8')) as Record<string, unknown>;
    assert.ok('headRef' in manifest && 'indexFlags' in manifest && 'gitDirFiles' in manifest, 'the new capture records them');
    for (const field of ['headRef', 'indexFlags', 'gitDirFiles']) delete manifest[field];
    writeFileSync(inventory, JSON.stringify(manifest));
    await readManifest(inventory);
    const result = await restore();
    assert.equal(git(result.path, 'symbolic-ref', 'HEAD'), 'refs/heads/paddock/job1');
    assert.match(git(result.path, 'ls-files', '-v', 'd.txt'), /^H d\.txt$/);
  });
});
