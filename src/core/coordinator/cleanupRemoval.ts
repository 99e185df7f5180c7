/**
 * The last stage of a cleanup: remove the worktree (never under a holder, and a
 * half-removed one only when all that is left is in the evidence), then the
 * branch when none of its commits would be lost or the person asked.
 */
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { describeError } from '../common/errors';
import { BranchCheckedOut, branchSafety, DEFAULT_REGENERABLE, deleteBranch, readManifest, removeWorktree, runGit, walkWorktree } from '../git';
import type { WalkOptions } from '../git/inventory';
import { firstUnsavedEntry, isGitless } from '../git/remnant';
import { resolvedPath } from '../git/worktreeRegistration';
import { firstChangeSinceCapture, type CaptureStamp } from '../git/changedSince';
import { regenerableMatcher } from '../git/classify';
import { holdersOf } from '../proc';
import { printable } from '../common/printable';
import type { Holder, JobRecord } from '../store/schema';
import { StageFailure, type Stage } from './cleanupStageFailure';
import { bringBackAside, moveAside, moveBack } from './worktreeAside';

export { StageFailure, type Stage } from './cleanupStageFailure';

function describeHolders(holders: Holder[]): string {
  const shown = holders.slice(0, 5).map((h) => `pid ${h.pid} (${h.command.split(' ')[0] || '?'})`);
  const more = holders.length > 5 ? ` and ${holders.length - 5} more` : '';
  return `held by ${shown.join(', ')}${more}`;
}

/**
 * Who holds `folder`, or a refusal in words when the look failed (a `ps` or `lsof` killed by its
 * timeout, at the process limit): read as "nobody", a worktree was removed under a live process
 * (bug 195). Not observed: retried on the backoff, never judged "unchanged".
 */
async function holdersOrRefuse(folder: string, worktree: string): Promise<Holder[]> {
  try {
    return await holdersOf(folder);
  } catch (err) {
    throw new StageFailure('removing', `could not tell whether a process is working in ${printable(worktree)} (${describeError(err, 300)}); nothing was removed`);
  }
}

/** What is left of a half-removed worktree must all be in the recorded evidence, unchanged. */
export async function checkRemnant(job: JobRecord, stage: Stage): Promise<void> {
  const inventory = job.evidence?.inventory;
  if (!inventory) throw new StageFailure(stage, `${job.worktree} is no longer a git worktree and no inventory of it was recorded; it was left in place`);
  const manifest = await readManifest(inventory);
  const unsaved = await firstUnsavedEntry(job.worktree!, manifest, job.cleanup?.regenerable ?? DEFAULT_REGENERABLE);
  if (unsaved !== null) {
    throw new StageFailure(stage, `${job.worktree} is no longer a git worktree and ${printable(unsaved)} in it is not in the evidence; it was left in place`, [], false, true);
  }
}

/**
 * Deletes what is left of a half-removed worktree (all of it in the evidence). A file the file system
 * will not delete (`chattr +i`, an append-only flag) makes Node's recursive rm fail with whatever its
 * fallback met last (ENOTDIR from scandir on that file): said as one sentence naming the file.
 */
async function removeRemnant(worktree: string, shownAt = worktree): Promise<void> {
  try {
    await fs.rm(worktree, { recursive: true, force: true });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    // `shownAt`: where the folder is put back when it was deleted from aside (worktreeAside.ts).
    const where = e.path ? printable(e.path.startsWith(worktree) ? shownAt + e.path.slice(worktree.length) : e.path) : shownAt;
    throw new StageFailure('removing', `cannot delete ${where} (${e.code ?? 'error'}: an immutable or append-only file, or a read-only mount); what is left is all in the evidence`, [], true);
  }
}

/** The worktree changed between its capture and its removal: capturing again may catch up. */
export class ChangedAfterCapture extends StageFailure {
  constructor(
    worktree: string,
    readonly changed: string,
  ) {
    super('removing', `${changed} in ${worktree} changed after it was captured (something is still writing there); nothing was removed`);
  }
}

/** For tests: runs between the removal's last look at the worktree and its deletion. */
export interface RemovalHooks {
  afterLastLook?: (folder: string) => Promise<void>;
}

/**
 * 3. Removes the job's worktree; returns the note for the person. A worktree git still knows is
 * removed only when `stamp`, its capture by this attempt, still describes it entry for entry.
 * `walkOptions`: as the capture walked it (blocking calls in a `paddock` command, which has no event
 * loop to keep free: a third of the time of lstat calls through promises).
 */
export async function removeJobWorktree(job: JobRecord, worktree: string, stamp?: CaptureStamp, walkOptions: WalkOptions = {}, hooks: RemovalHooks = {}): Promise<string> {
  await bringBackAside(worktree);
  if (existsSync(worktree)) {
    const holders = await holdersOrRefuse(worktree, worktree);
    if (holders.length > 0) throw new StageFailure('removing', describeHolders(holders), holders);
    const gitless = isGitless(worktree);
    if (!gitless && !stamp) throw new StageFailure('removing', `${worktree} was not captured by this attempt; nothing was removed`);
    if (!gitless && stamp) return removeCapturedWorktree(job, worktree, stamp, walkOptions, hooks);
    await lookBeforeRemoval(job, worktree, undefined, walkOptions);
  }
  let outcome;
  try {
    if (isGitless(worktree)) {
      await checkRemnant(job, 'removing');
      await removeRemnant(worktree);
      // A deletion from aside that stopped half-way left git's registration: dropped with the folder gone.
      await removeWorktree(job.repo, worktree);
      outcome = 'remnant-removed';
    } else {
      outcome = (await removeWorktree(job.repo, worktree)).outcome;
    }
  } catch (err) {
    if (err instanceof StageFailure) throw err;
    throw new StageFailure('removing', describeError(err));
  }
  await removeEmptyWorktreesFolder(worktree);
  return outcome === 'already-gone-pruned'
    ? 'worktree was already deleted; pruned it from git'
    : outcome === 'remnant-removed'
      ? 'removed what was left of a half-removed worktree (all of it in the evidence)'
      : 'worktree removed';
}

/**
 * A worktree captured by this attempt: moved aside (worktreeAside.ts), looked at a last time there
 * (nothing holds it, nothing blocks its deletion, nothing changed since the capture), deleted there,
 * and its registration dropped. Any refusal puts it back in its place first.
 */
async function removeCapturedWorktree(job: JobRecord, worktree: string, stamp: CaptureStamp, walkOptions: WalkOptions, hooks: RemovalHooks): Promise<string> {
  const aside = await moveAside(worktree);
  const folder = aside ?? worktree;
  try {
    if (aside) {
      // A process whose folder or open file is inside moved with it: still a holder.
      const holders = await holdersOrRefuse(aside, worktree);
      if (holders.length > 0) throw new StageFailure('removing', describeHolders(holders), holders);
    }
    await lookBeforeRemoval(job, folder, stamp, walkOptions);
    await hooks.afterLastLook?.(folder);
  } catch (err) {
    if (aside) await moveBack(aside, worktree);
    throw err;
  }
  try {
    if (aside) await deleteMovedAside(aside, worktree);
    await removeWorktree(job.repo, worktree);
  } catch (err) {
    if (err instanceof StageFailure) throw err;
    throw new StageFailure('removing', describeError(err));
  }
  await removeEmptyWorktreesFolder(worktree);
  return 'worktree removed';
}

/**
 * Its `.git` first: a deletion that stops half-way leaves a folder that is no worktree, all of it in
 * the evidence, which is put back in the worktree's place for the next attempt's remnant check.
 */
async function deleteMovedAside(aside: string, worktree: string): Promise<void> {
  try {
    await fs.rm(path.join(aside, '.git'), { recursive: true, force: true });
    await removeRemnant(aside, worktree);
  } catch (err) {
    await moveBack(aside, worktree).catch(() => undefined);
    throw err;
  }
}

/** What must hold before a worktree is deleted: nothing git or Node could not delete, and, when captured, nothing changed since. */
async function lookBeforeRemoval(job: JobRecord, folder: string, stamp: CaptureStamp | undefined, walkOptions: WalkOptions): Promise<void> {
  const walk = await walkWorktree(folder, walkOptions);
  // Found before git is asked: git would delete .git and the registration, then stop half-way.
  const blocked = [...walk.undeletable, ...walk.unreadable];
  if (blocked.length > 0) {
    const more = blocked.length > 3 ? ` and ${blocked.length - 3} more` : '';
    throw new StageFailure('removing', `cannot delete what is in ${blocked.slice(0, 3).map(printable).join(', ')}${more} (permissions or a read-only mount); nothing was removed`, [], true);
  }
  // Anything written since the capture (an escaped process, an editor's auto-save) exists nowhere
  // else: deleting it would lose it unsaved.
  if (stamp) {
    const changed = await firstChangeSinceCapture(walk, stamp, regenerableMatcher(job.cleanup?.regenerable ?? DEFAULT_REGENERABLE), walkOptions);
    if (changed !== null) throw new ChangedAfterCapture(job.worktree ?? folder, changed);
  }
}

/** The last agent of a repository leaves no empty `<repo>.worktrees/` behind (rmdir refuses a non-empty one). */
async function removeEmptyWorktreesFolder(worktree: string): Promise<void> {
  const parent = path.dirname(worktree);
  if (parent.endsWith('.worktrees')) await fs.rmdir(parent).catch(() => undefined);
}

/** 4. Deletes the job's branch when nothing would be lost (or the person asked); returns what was done. */
export async function removeJobBranch(job: JobRecord, branch: string): Promise<string> {
  try {
    // A branch landed by squash or rebase has its work on the target as new commits: up to the tip that was
    // landed it loses nothing (and the snapshot ref keeps its commits); anything committed later still counts.
    const landed = await landedTipStillOnTarget(job);
    const safety = await branchSafety(job.repo, branch, { alsoReachableFrom: landed });
    if (!safety.exists) return `branch ${branch} was already gone`;
    const n = safety.unmergedCommits;
    if (n === 0) return (await deleteUnlessCheckedOutElsewhere(job, branch)) ?? `branch ${branch} deleted (all its commits are reachable elsewhere)`;
    if (job.cleanup!.deleteBranch) return (await deleteUnlessCheckedOutElsewhere(job, branch)) ?? `branch ${branch} deleted as asked: ${n} commit${n === 1 ? '' : 's'} not merged`;
    return `branch kept: ${n} commit${n === 1 ? '' : 's'} not merged`;
  } catch (err) {
    throw new StageFailure('removing', describeError(err));
  }
}

/**
 * Deletes the branch, unless another worktree has it checked out (a restored copy, the person's main
 * worktree, one whose folder is gone): git refuses that on every retry, and taking the branch from
 * under that worktree is not the cleanup's to do. Its commits are that worktree's HEAD (and in the
 * snapshot ref), so it is kept like an unmerged one and the cleanup completes: returns that note, or
 * null once deleted. The agent's own worktree is removed by now; one back at its path is retried.
 */
async function deleteUnlessCheckedOutElsewhere(job: JobRecord, branch: string): Promise<string | null> {
  try {
    await deleteBranch(job.repo, branch, { force: true, worktree: job.worktree });
    return null;
  } catch (err) {
    if (!(err instanceof BranchCheckedOut) || isOwnWorktree(job, err.at)) throw err;
    if (err.at === null) return 'branch kept: checked out in another worktree';
    // A registration whose folder is gone (a drive not mounted) is the person's to prune, never ours.
    const gone = existsSync(err.at) ? '' : ' (a worktree whose folder is gone: `git worktree prune` forgets it and frees the branch)';
    return `branch kept: checked out at '${printable(err.at)}'${gone}`;
  }
}

function isOwnWorktree(job: JobRecord, at: string | null): boolean {
  return at !== null && job.worktree !== null && resolvedPath(at) === resolvedPath(job.worktree);
}

/**
 * The branch tip a landing put on its target, while the landing still stands: its commit is still
 * on the target branch. A landing undone since (the target reset, the branch deleted) proves
 * nothing, and a pull request's pushed branch counts only through the remote's ref itself.
 */
async function landedTipStillOnTarget(job: JobRecord): Promise<string[]> {
  const l = job.landing;
  if (!l || l.kind === 'apply' || l.kind === 'pr' || !l.branchHead || !l.commit) return [];
  const onTarget = await runGit(['merge-base', '--is-ancestor', '--end-of-options', l.commit, `refs/heads/${l.into}`], { cwd: job.repo, allowFailure: true });
  return onTarget.code === 0 ? [l.branchHead] : [];
}
