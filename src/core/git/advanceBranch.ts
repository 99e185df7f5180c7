/**
 * Moves a branch forward from the commit a landing started from to the one it
 * made, or leaves it exactly where it was. Not checked out anywhere: one
 * compare-and-swap `update-ref` (atomic: after a SIGKILL the ref is at the old
 * or the new commit, never between). Checked out: only in a worktree without
 * uncommitted changes, by a fast-forward there, refused first when it would
 * overwrite or delete a file that is not committed (untracked, ignored, or
 * the person's inside a folder that becomes a file), which git alone misses.
 * A fast-forward git stops half-way (a required smudge filter that fails, a
 * full disk) is put back path by path before the refusal is said.
 */
import { describeError, failure } from '../common/errors';
import { prepareApplyUndo, refusedBeforeWriting } from './applyUndo';
import { settlingOnError, startEarly } from '../common/early';
import { branchTip, headCommit, localChanges, operationInProgress, worktreeFolderExists, worktreesOfBranch, type LocalChanges } from './checkout';
import { fewPaths } from './landingConflict';
import { readHeadFromFiles } from './headFiles';
import { firstLine, gitOutcome, runGit } from './runGit';
import { MERGE_CONFIG } from './scopedConfig';
import { treeChanges, type PathChange } from './treeChanges';
import { untrackedInTheWay, untrackedInTheWayError } from './untrackedInTheWay';
import type { WorktreeEntry } from './worktree';

/** What a landing asks the worktree its target is checked out in: a git operation stopped half-way, and its tracked changes. */
export interface TargetLooks {
  worktree: string;
  busy: Promise<string | null>;
  changes: Promise<LocalChanges>;
}

/**
 * Begins `assertTargetLandable`'s reads of `worktree` (read-only; no optional locks). A caller that
 * can guess where the target is checked out begins them before it knows, so that the status of a
 * large worktree runs beside the landing's other reads instead of after the worktree list; a wrong
 * guess is only a read thrown away (the caller lets it finish).
 */
export function lookAtTarget(worktree: string): TargetLooks {
  return { worktree, busy: startEarly(operationInProgress(worktree)), changes: startEarly(localChanges(worktree, 'no')) };
}

/**
 * Throws the one sentence when `branch` is checked out in a worktree that a landing must not touch.
 * `worktrees`: `listWorktrees(repo)` when the caller started it early, else it is read now.
 */
export async function assertTargetLandable(repo: string, branch: string, worktrees?: Promise<WorktreeEntry[]>, guessed?: TargetLooks): Promise<string | null> {
  const holding = await worktreesOfBranch(repo, branch, worktrees);
  const worktree = holding[0] ?? null;
  if (worktree === null) return null;
  // Held twice (`git worktree add --force`): the move updates one worktree, and the other's index and files stay behind the
  // branch, so its next commit would undo the landing (and its uncommitted changes were never looked at). A rebase of it
  // stopped in another (or a `rebase --update-refs` that is to move it) holds it as git counts it: `git branch -f` refuses
  // the branch, and that rebase, continued, would fail at its end ("update_ref failed … expected"): the branch keeps the landing, the rebased work is on none.
  if (holding.length > 1) {
    throw failure(
      `Branch ${branch} is checked out in ${holding.length} worktrees (${fewPaths(holding)}); moving it would leave all but one of them behind it — check it out in one only first, nothing was changed.`,
      'TARGET_DIRTY',
    );
  }
  // git still counts a branch checked out in a registered worktree whose folder is gone (and refuses to move it).
  if (!(await worktreeFolderExists(worktree))) {
    throw failure(`Branch ${branch} is checked out in ${worktree}, a worktree whose folder is gone; restore the folder or remove that worktree's registration first — nothing was changed.`, 'TARGET_DIRTY');
  }
  const looks = guessed?.worktree === worktree ? guessed : lookAtTarget(worktree);
  const [busy, { tracked }] = await Promise.all([looks.busy, looks.changes]);
  if (busy) throw failure(`Branch ${branch} is checked out in ${worktree} with ${busy} in progress; finish or abort it first — nothing was changed.`, 'TARGET_DIRTY');
  if (tracked.length > 0) {
    throw failure(`Branch ${branch} is checked out in ${worktree} with uncommitted changes (${fewPaths(tracked)}); commit or stash them yourself first — nothing was changed.`, 'TARGET_DIRTY');
  }
  return worktree;
}

/**
 * `checkedOut`: the result of `assertTargetLandable` the caller got just before (the worktree, or null),
 * so a large worktree's status is not read twice; a change made since is still safe: a fast-forward
 * keeps changes to other files and refuses, as a whole, to overwrite one. `changes`: `treeChanges(repo,
 * from, to)` when the caller reads it for another check too. `inTheWay`: `untrackedInTheWay(checkedOut,
 * from, [to], changes)` begun by the caller beside its other reads; a file that appears in the way
 * after that look is still refused by git as a whole (exact paths, `--no-overwrite-ignore`, folders
 * holding untracked files).
 */
export async function advanceBranch(
  repo: string,
  branch: string,
  from: string,
  to: string,
  reason: string,
  checkedOut?: string | null,
  changes?: Promise<PathChange[]>,
  inTheWayAhead?: Promise<string[]>,
): Promise<void> {
  const worktree = checkedOut !== undefined ? checkedOut : await assertTargetLandable(repo, branch);
  if (worktree === null) {
    const res = await runGit(['update-ref', '-m', reason, `refs/heads/${branch}`, to, from], { cwd: repo, allowFailure: true });
    if (res.code === 0) return;
    // A branch still where it was was not moved by anyone: git refused the update itself (a reference-transaction hook, a lock).
    if ((await branchTip(repo, branch).catch(() => null)) === from) {
      throw failure(`Could not move ${branch}: ${firstLine(res.stderr) || `exit code ${res.code}`}; nothing was changed.`, 'TARGET_REFUSED');
    }
    throw failure(`Branch ${branch} moved while the landing was prepared (${firstLine(res.stderr)}); nothing was changed, try again.`, 'TARGET_MOVED');
  }
  // The last look before the fast-forward, from git's files (no process): HEAD must still name the branch, at `from`.
  const seen = await readHeadFromFiles(worktree).catch(() => undefined);
  const stillThere = seen ? seen.ref === `refs/heads/${branch}` && seen.head === from : (await headCommit(worktree)) === from;
  if (!stillThere) throw failure(`Branch ${branch} moved while the landing was prepared; nothing was changed, try again.`, 'TARGET_MOVED');
  const changed = changes ?? startEarly(treeChanges(worktree, from, to));
  // Read before git writes anything: which paths to put back, should the fast-forward stop half-way.
  const undo = startEarly(prepareApplyUndo(worktree, from, to, changed));
  // git refuses to overwrite an untracked file by exact path only, and overwrites ignored ones without a word.
  const inTheWay = await settlingOnError([undo], () => inTheWayAhead ?? untrackedInTheWay(worktree, from, [to], changed));
  if (inTheWay.length > 0) {
    await undo.catch(() => undefined);
    throw untrackedInTheWayError(`Moving ${branch} to the landed commit`, worktree, inTheWay);
  }
  const undoReady = await undo;
  // `--no-overwrite-ignore`: should an ignored file appear after that look, git refuses as a whole too.
  // `--no-verify-signatures`: the landed tip's signature was checked already (merge.verifySignatures);
  // `to` may be the landing's own merge or squash commit, which git would refuse as unsigned.
  const res = await gitOutcome(['merge', '--ff-only', '--no-overwrite-ignore', '--no-verify-signatures', '--no-stat', '--quiet', to], { cwd: worktree, env: { GIT_REFLOG_ACTION: reason, ...withoutMergeOptions(branch) }, config: MERGE_CONFIG });
  if (res.code === 0) return;
  // git moves the branch after the files and the index, then runs the person's post-merge hook: git
  // killed after the move (a hook stopped at runGit's time limit, or one that killed it) has landed.
  if ((await branchTip(repo, branch).catch(() => null)) === to) return;
  const why = res.why;
  // git checks the whole move before writing a file, but a write can still fail after others (a
  // required smudge filter whose program is missing, a full disk): the files written stay, while the
  // index and the branch are as they were.
  // Only over the files of `from`: a branch another landing moved meanwhile is that landing's checkout.
  if (!refusedBeforeWriting(res.stderr) && (await headCommit(worktree).catch(() => null)) === from) {
    try {
      await undoReady.undo();
    } catch (err) {
      throw failure(
        `Could not move ${branch} in ${worktree}: ${why}, and putting back the files git had begun to change failed (${describeError(err, 300)}); ${branch} did not move, check ${fewPaths((await changed).map((c) => c.path))} there.`,
        'TARGET_REFUSED',
      );
    }
  }
  throw failure(`Could not move ${branch} in ${worktree}: ${why}; nothing was changed.`, 'TARGET_REFUSED');
}

/**
 * `branch.<branch>.mergeOptions` emptied for this one `git merge`: git adds them to its command line,
 * and `--squash` there made the fast-forward stage the files and exit 0 with the branch not moved
 * (said landed, the person's index changed), an unknown option made it fail. The landing has decided
 * already (its options are followed or refused by `mergeSettings`). Given in the environment,
 * not `-c`, whose key ends at the first `=` a branch name may hold; a git older than 2.31 ignores it.
 */
function withoutMergeOptions(branch: string): NodeJS.ProcessEnv {
  return { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: `branch.${branch}.mergeoptions`, GIT_CONFIG_VALUE_0: '' };
}
