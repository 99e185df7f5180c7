/**
 * What HEAD names and whether an operation stopped half-way, read from git's
 * files with no process, agree with what git itself answers (`symbolic-ref`,
 * `rev-parse --git-path`) in every layout: the main worktree, a linked one, a
 * separate git dir, a detached or unborn HEAD, and each kind of operation in
 * progress. What the files cannot answer falls back to git.
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { currentBranch, operationInProgress } from '../../../../src/core/git/checkout';
import { branchExistsInFiles, readHeadName, worktreeGitDir } from '../../../../src/core/git/headFiles';
import { isCommitId } from '../../../../src/core/git/commitId';
import { Sandbox, git, useGitSandbox, write } from './gitTestUtil';

/** git's own answer: the short branch name, or null when detached. */
function gitBranch(worktree: string): string | null {
  const res = spawnSync('git', ['symbolic-ref', '--quiet', '--short', 'HEAD'], { cwd: worktree, encoding: 'utf8' });
  return res.status === 0 ? res.stdout.trim() : null;
}

/** git's own answer: which of the in-progress paths exist. */
function gitInProgress(worktree: string): string | null {
  const names = [['MERGE_HEAD', 'a merge'], ['rebase-merge', 'a rebase'], ['rebase-apply', 'a rebase'], ['CHERRY_PICK_HEAD', 'a cherry-pick'], ['REVERT_HEAD', 'a revert'], ['BISECT_START', 'a bisect']];
  for (const [name, what] of names) if (existsSync(path.resolve(worktree, git(worktree, 'rev-parse', '--git-path', name)))) return what;
  return null;
}

describe('git: HEAD and operations in progress from the files', function () {
  this.timeout(60_000);
  let sb!: Sandbox;
  let repo: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'a.txt': 'one\n' });
  });

  async function agrees(worktree: string, label: string): Promise<void> {
    assert.equal(await currentBranch(worktree), gitBranch(worktree), `${label}: branch`);
    assert.equal(await operationInProgress(worktree), gitInProgress(worktree), `${label}: in progress`);
  }

  it('agrees with git in the main worktree, a linked one and a separate git dir, attached, detached and unborn', async () => {
    await agrees(repo, 'main worktree');
    const wt = sb.path('wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'feature/x', wt, 'main');
    await agrees(wt, 'linked worktree');
    assert.equal((await readHeadName(wt))?.ref, 'refs/heads/feature/x', 'read from the file');
    git(wt, 'checkout', '-q', '--detach');
    await agrees(wt, 'linked, detached');
    const detached = await readHeadName(wt);
    assert.ok(detached?.ref === null && isCommitId(detached.detachedAt));
    git(repo, 'checkout', '-q', '--orphan', 'unborn');
    await agrees(repo, 'unborn branch');
    const separate = sb.path('separate');
    mkdirSync(separate);
    git(separate, 'init', '-q', '-b', 'trunk', `--separate-git-dir=${sb.path('separate.git')}`);
    await agrees(separate, 'separate git dir');
  });

  it('agrees with git for a merge, a cherry-pick, a revert, a rebase and a bisect stopped half-way, in both kinds of worktree', async () => {
    const wt = sb.path('wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'side', wt, 'main');
    write(wt, 'a.txt', 'side\n');
    git(wt, 'commit', '-q', '-am', 'side');
    write(repo, 'a.txt', 'main\n');
    git(repo, 'commit', '-q', '-am', 'main');
    const stopped = (cwd: string, ...args: string[]): void => {
      assert.notEqual(spawnSync('git', args, { cwd, encoding: 'utf8' }).status, 0, `git ${args.join(' ')} stops on the conflict`);
    };
    for (const [where, other] of [[repo, 'side'], [wt, 'main']] as const) {
      stopped(where, 'merge', '-q', other);
      await agrees(where, `merge in ${where}`);
      assert.equal(await operationInProgress(where), 'a merge');
      git(where, 'merge', '--abort');
      stopped(where, 'cherry-pick', other);
      await agrees(where, `cherry-pick in ${where}`);
      assert.equal(await operationInProgress(where), 'a cherry-pick');
      git(where, 'cherry-pick', '--abort');
      // Reverting the first commit deletes a.txt, which both branches changed since.
      stopped(where, 'revert', '--no-edit', 'HEAD~1');
      await agrees(where, `revert in ${where}`);
      assert.equal(await operationInProgress(where), 'a revert');
      git(where, 'revert', '--abort');
      stopped(where, 'rebase', '-q', other);
      await agrees(where, `rebase in ${where}`);
      assert.equal(await operationInProgress(where), 'a rebase');
      git(where, 'rebase', '--abort');
      git(where, 'bisect', 'start', 'HEAD', 'HEAD~1');
      await agrees(where, `bisect in ${where}`);
      assert.equal(await operationInProgress(where), 'a bisect');
      git(where, 'bisect', 'reset');
      await agrees(where, `nothing in ${where}`);
    }
  });

  it('asks git when HEAD is a symlink or a placeholder it cannot read', async () => {
    const head = path.join(repo, '.git', 'HEAD');
    unlinkSync(head);
    symlinkSync('refs/heads/main', head);
    assert.equal(await readHeadName(repo), undefined);
    assert.equal(await currentBranch(repo), gitBranch(repo));
    writeFileSync(head, 'ref: refs/heads/.invalid\n');
    assert.equal(await readHeadName(repo), undefined, "a reftable's placeholder is not a branch");
  });

  it('says whether a branch exists as git does, loose or packed, from a linked worktree too; a reftable is left to git', async () => {
    const gitHas = (b: string): boolean => spawnSync('git', ['rev-parse', '--verify', '--quiet', `refs/heads/${b}`], { cwd: repo }).status === 0;
    git(repo, 'branch', 'paddock/loose');
    git(repo, 'branch', 'packed/one');
    git(repo, 'pack-refs', '--all');
    git(repo, 'branch', 'paddock/after');
    const wt = sb.path('wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'wt-branch', wt, 'main');
    for (const name of ['main', 'paddock/loose', 'packed/one', 'paddock/after', 'wt-branch', 'paddock/none', 'packed']) {
      assert.equal(await branchExistsInFiles(repo, name), gitHas(name), `${name} from the main worktree`);
      assert.equal(await branchExistsInFiles(wt, name), gitHas(name), `${name} from a linked worktree`);
    }
    // A folder of loose refs where the branch's file would be: the files do not say, git is asked.
    assert.equal(await branchExistsInFiles(repo, 'paddock'), undefined);
    mkdirSync(path.join(repo, '.git', 'reftable'));
    assert.equal(await branchExistsInFiles(repo, 'main'), undefined);
  });

  it('reads the git dir a linked worktree at a path with a newline names, as git does', async () => {
    const wt = sb.path('line\nbreak wt');
    git(repo, 'worktree', 'add', '-q', '--detach', wt);
    const gitDir = await worktreeGitDir(wt);
    assert.equal(gitDir, path.resolve(wt, git(wt, 'rev-parse', '--git-dir')));
    assert.equal((await readHeadName(wt))?.gitDir, gitDir);
  });
});
