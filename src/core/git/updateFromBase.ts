/**
 * Brings the base into an agent's branch inside its own worktree: a merge
 * (or a rebase of the agent's commits onto the base). A conflict is left
 * there on purpose, for the person or the agent to resolve where the work
 * belongs; the error lists the files and how to finish or abort.
 */
import { describeError, failure } from '../common/errors';
import { settlingOnError, startEarly } from '../common/early';
import { prepareUndoAcross, refusedBeforeWriting, type ApplyUndo } from './applyUndo';
import { headCommit, localChanges, operationInProgress } from './checkout';
import { unmergedPaths } from './landBranch';
import { fewPaths, LandingConflict } from './landingConflict';
import { isAncestor, mergeCommitsBetween, mergeTrees } from './mergeTree';
import { readHeadFromFiles } from './headFiles';
import { identityHint } from './identityHint';
import { gitOutcome, GIT_BULK_TIMEOUT_MS, runGit } from './runGit';
import { MERGE_CONFIG, REBASE_CONFIG } from './scopedConfig';
import { untrackedInTheWay, untrackedInTheWayError } from './untrackedInTheWay';

export interface UpdateResult {
  updated: boolean;
  head: string;
}

/**
 * A rebase replays single-parent commits only: what a merge commit between `base` and `head`
 * carries would be deleted from the branch and the disk, so such a rebase is refused. Asked by the
 * caller too before it commits the agent's work (a commit of its own, which changes no answer here).
 */
export async function assertRebasableOnto(worktree: string, base: string, baseName: string, head = 'HEAD'): Promise<void> {
  const merges = await mergeCommitsBetween(worktree, base, head);
  if (merges === 0) return;
  throw failure(
    `The agent's branch in ${worktree} has ${merges} merge commit${merges === 1 ? '' : 's'}, whose changes a rebase would drop; nothing was changed (update without --rebase to merge ${baseName} instead).`,
    'REBASE_MERGES',
  );
}

export async function updateFromBase(worktree: string, base: string, baseName: string, opts: { rebase: boolean }): Promise<UpdateResult> {
  const busy = await operationInProgress(worktree);
  if (busy) throw failure(`${worktree} has ${busy} in progress; finish or abort it first — nothing was changed.`);
  const { tracked } = await localChanges(worktree);
  if (tracked.length > 0) throw failure(`${worktree} has uncommitted changes (${fewPaths(tracked)}); commit them first — nothing was changed.`, 'UNCOMMITTED');
  const before = await headCommit(worktree);
  if (await isAncestor(worktree, base, before)) return { updated: false, head: before };
  const trees = await treesPassedThrough(worktree, before, base, opts.rebase);
  // Read before git writes anything: which paths to put back, should the merge or rebase stop half-way.
  const undo = startEarly(prepareUndoAcross(worktree, before, trees));
  const inTheWay = await settlingOnError([undo], () => untrackedInTheWay(worktree, before, trees));
  if (inTheWay.length > 0) {
    await undo.catch(() => undefined);
    throw untrackedInTheWayError(`Bringing ${baseName} into the agent's branch`, worktree, inTheWay);
  }
  const verb = opts.rebase ? 'rebase' : 'merge';
  if (opts.rebase) await settlingOnError([undo], () => assertRebasableOnto(worktree, base, baseName, before));
  // Said explicitly, so that no setting changes what an update is: merge.ff (only / false) and a
  // branch's mergeOptions (--squash, --no-commit) would refuse the merge, or leave it uncommitted.
  const mergeArgs = ['merge', '--no-overwrite-ignore', '--ff', '--commit', '--no-squash', '--no-edit', '--no-stat', '-m', `Merge ${baseName} into the agent's branch`, base];
  const args = opts.rebase ? ['rebase', '--quiet', '--no-autosquash', base] : mergeArgs;
  const config = opts.rebase ? REBASE_CONFIG : MERGE_CONFIG;
  const undoReady = await undo;
  const res = await gitOutcome(args, { cwd: worktree, env: { GIT_EDITOR: 'true' }, config });
  if (res.code !== 0) {
    const files = await unmergedPaths(worktree);
    if (files.length > 0) {
      const n = files.length;
      throw new LandingConflict(
        `Bringing ${baseName} into ${worktree} stopped on conflicts in ${n} file${n === 1 ? '' : 's'} (${fewPaths(files)}); resolve them there and run git ${verb} --continue (or git ${verb} --abort to undo).`,
        files,
      );
    }
    // git moves the branch, then runs the person's hooks, then forgets the operation's state: a merge
    // killed in its post-merge hook (a hook stopped at runGit's time limit, or one that killed git)
    // has committed and left MERGE_HEAD, which the abort drops, keeping the commit; a rebase killed
    // in its post-rewrite hook is undone by its abort.
    await runGit([verb, '--abort'], { cwd: worktree, allowFailure: true, config });
    const landed = await finishedAnyway(worktree, before, base);
    if (landed !== null) return { updated: true, head: landed };
    const why = `${res.why}${identityHint(res.stderr)}`;
    if (!refusedBeforeWriting(res.stderr)) await putBack(worktree, before, undoReady, `git ${verb} of ${baseName} failed in ${worktree}: ${why}`);
    throw failure(`git ${verb} of ${baseName} failed in ${worktree}: ${why}; nothing was changed.`);
  }
  return { updated: true, head: await headCommit(worktree) };
}

/**
 * The trees whose files the merge or rebase writes into the worktree. A clean merge: its result. A
 * merge that stops on conflicts writes the base's side: the base's tree covers every path it can
 * write. A rebase checks out the base, then replays each of the agent's commits: the base and each
 * of those commits (a path a commit adds and a later one deletes is written in between).
 */
async function treesPassedThrough(worktree: string, before: string, base: string, rebase: boolean): Promise<string[]> {
  if (!rebase) {
    const merged = await mergeTrees(worktree, before, base);
    return [merged.clean ? merged.tree : base];
  }
  const replayed = await runGit(['rev-list', '--no-merges', `${base}..${before}`, '--'], { cwd: worktree, timeoutMs: GIT_BULK_TIMEOUT_MS });
  return [base, ...replayed.stdout.split('\n').filter(Boolean)];
}

/** The branch's new HEAD when git, though it failed, updated it: checked out, moved, holding the base, nothing in progress; else null. */
async function finishedAnyway(worktree: string, before: string, base: string): Promise<string | null> {
  const [head, busy] = await Promise.all([readHeadFromFiles(worktree).catch(() => undefined), operationInProgress(worktree)]);
  if (head === undefined || head.ref === null || head.head === before || busy !== null) return null;
  return (await isAncestor(worktree, base, head.head)) ? head.head : null;
}

/**
 * A merge or rebase git stopped half-way without a conflict (a write that failed after others: a
 * required smudge filter whose program is missing, a full disk) leaves the files it wrote while the
 * branch and the index are as before (its abort, when there is one to abort, puts back only what it
 * recorded): the agent's worktree is put back path by path, or the sentence says what is left.
 */
async function putBack(worktree: string, before: string, undo: ApplyUndo, failed: string): Promise<void> {
  const [head, busy] = await Promise.all([headCommit(worktree).catch(() => null), operationInProgress(worktree)]);
  const problem =
    head !== before ? `HEAD is at ${head ?? 'no commit'} instead of ${before.slice(0, 12)}` : busy ? `${busy} is still in progress` : await undo.undo().then(() => null, (err: unknown) => describeError(err, 300));
  if (problem === null) return;
  throw failure(`${failed}, and putting back the files it had begun to change failed (${problem}); check the worktree with git status before landing it — the agent's branch did not move.`);
}
