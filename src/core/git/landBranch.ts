/**
 * Lands a commit (the agent's branch tip) on a target branch: a merge
 * (fast-forward when possible, else a merge commit — or as git's merge.ff
 * says: always a merge commit, or a fast-forward only), a squash, a rebase, or a
 * fast-forward only. The new commit is made away from every working tree (in
 * the object database, or in a temporary worktree for a rebase) and the
 * target moves only at the end, by `advanceBranch`: on a conflict, or when
 * anything fails, the target's ref, index and working tree are as they were.
 * Commits already on the target are never rewritten.
 */
import { failure } from '../common/errors';
import { advanceBranch, assertTargetLandable } from './advanceBranch';
import { danglingGitlinks, nestedRepositoryError } from './danglingGitlinks';
import { branchTip, headCommit } from './checkout';
import { fewPaths, LandingConflict } from './landingConflict';
import { LANDING_GIT_CONFIG, withLandingWorktree } from './landingWorktree';
import { ancestry, commitTree, mergeCommitsBetween, mergeTrees, treeOf } from './mergeTree';
import { firstLine, runGit } from './runGit';
import { MERGE_SETTINGS_DEFAULT, type MergeSettings } from './mergeSettings';
import { assertMergeSignature } from './mergeSignature';
import { withMergeLog } from './mergeLog';
import { committedMessage } from './messageCleanup';
import { identityHint } from './identityHint';
import { REBASE_CONFIG } from './scopedConfig';
import { settlingOnError, startEarly } from '../common/early';
import { treeChanges, type PathChange } from './treeChanges';
import { landingReason, type LandedKind } from './earlierLanding';

export type LandStrategy = 'merge' | 'squash' | 'rebase' | 'ff-only';
export type { LandedKind };

export interface LandBranchRequest {
  repo: string;
  /** Local branch to land on. */
  target: string;
  /** The commit to land (the agent's branch tip). */
  source: string;
  /** How it is named in messages ("paddock/abc123"). */
  sourceName: string;
  strategy: LandStrategy;
  /** Message of the merge or squash commit. */
  message: string;
  /**
   * git's merge settings for the target (`mergeSettings`), followed by a merge, a squash and a
   * fast-forward only as `git merge` follows them: for a merge, whether it may, must not, or must
   * fast-forward; the tip's signature checked; the commit signed or not; unrelated histories
   * allowed. Default: none set. Settings Paddock cannot follow are the caller's to refuse first.
   */
  settings?: MergeSettings;
  /** The caller's own refusal of the worktree the target is checked out in (an agent running there), asked before anything is made. */
  checkTarget?: (worktree: string) => Promise<void>;
  /** Paddock-owned folder for temporary worktrees. */
  scratchRoot: string;
  /**
   * Read by the caller already, at once with its own reads: the target's tip (null: no such branch),
   * and, when it is a commit, `readLanding` begun early (its refusal is thrown here, in its place).
   * Each is read here when not given. `merged`: `mergeAhead`'s answer for the same tips and message
   * (a merge only), its conflict or error thrown only after every refusal `reads` holds.
   */
  early?: {
    from: string | null;
    reads?: Promise<LandingReads | null>;
    merged?: Promise<MergedAhead | null> | null;
    /** `untrackedInTheWay` in the target's worktree for the merge made ahead (null: none made, or the target is not checked out). */
    inTheWay?: Promise<string[] | null> | null;
  };
}

/** Whether each of the source and the target's tip has the other's commits. */
export interface Ancestry {
  /** The source is in the target (`alreadyIn`). */
  aInB: boolean;
  /** The target is in the source (`canFastForward`). */
  bInA: boolean;
}

/**
 * A true merge made ahead of the checks: its commit (with what it changes on the target, read at
 * once for the checks before the target moves), or the files that conflict.
 */
export type MergedAhead = { clean: true; commit: string; changes: Promise<PathChange[]> } | { clean: false; conflicts: string[] };

export interface LandedBranch {
  kind: LandedKind;
  /** Where the target was. */
  from: string;
  /** Where the target is now. */
  commit: string;
}

/** What a landing asks before it makes anything. */
export interface LandingReads {
  /** `assertTargetLandable`'s answer: the worktree where the target is checked out, or null. */
  checkedOut: string | null;
  /** The target has every commit of the source. */
  alreadyIn: boolean;
  /** The target is an ancestor of the source. */
  canFastForward: boolean;
}

/**
 * Independent reads, at once: on a large repository each costs tens of milliseconds.
 * `checkedOut`: `assertTargetLandable(repo, target)` begun by the caller, else begun here.
 */
export async function readLanding(repo: string, target: string, source: string, from: string, checkedOut?: Promise<string | null>, related?: Promise<Ancestry>): Promise<LandingReads> {
  const [worktree, { aInB: alreadyIn, bInA: canFastForward }] = await Promise.all([checkedOut ?? assertTargetLandable(repo, target), related ?? ancestry(repo, source, from)]);
  return { checkedOut: worktree, alreadyIn, canFastForward };
}

/**
 * The merge commit of `source` into `from`, made while the checks of the target's worktree still
 * run: only objects are written (nothing moves, and a refusal leaves them unreachable, as a
 * conflict does). Null when there is nothing to merge or a fast-forward lands it, so no commit is
 * made that would only be thrown away.
 */
export async function mergeAhead(
  repo: string,
  source: string,
  sourceName: string,
  from: string,
  related: Promise<Ancestry>,
  message: string,
  settings: MergeSettings = MERGE_SETTINGS_DEFAULT,
): Promise<MergedAhead | null> {
  const [merged, { aInB, bInA }] = await Promise.all([mergeTrees(repo, from, source, settings), related]);
  if (aInB || bInA) return null;
  if (!merged.clean) return merged;
  // What the move changes is the merged tree's difference from `from`: read beside the commit's making, not after it.
  const changes = startEarly(treeChanges(repo, from, merged.tree));
  const commit = await settlingOnError([changes], async () =>
    commitTree(repo, merged.tree, [from, source], committedMessage(await withMergeLog(repo, message, from, source, sourceName, settings.log), settings.cleanup), undefined, settings.gpgSign, 'as given'),
  );
  return { clean: true, commit, changes };
}

export async function landBranch(req: LandBranchRequest): Promise<LandedBranch> {
  const { repo, target, source } = req;
  const from = req.early !== undefined ? req.early.from : await branchTip(repo, target);
  if (from === null) throw failure(`There is no branch ${target} in ${repo}; nothing was changed.`, 'NO_TARGET');
  const { checkedOut, alreadyIn, canFastForward } = (await req.early?.reads) ?? (await readLanding(repo, target, source, from));
  if (checkedOut !== null) await req.checkTarget?.(checkedOut);
  const settings = req.settings ?? MERGE_SETTINGS_DEFAULT;
  // As git merge does, before it says there is nothing to merge: a rebase is no git merge.
  if (settings.verifySignatures !== null && req.strategy !== 'rebase') await assertMergeSignature(repo, source, req.sourceName, settings.verifySignatures, settings.minTrustLevel);
  if (alreadyIn) throw failure(`${target} already has every commit of ${req.sourceName}; nothing was changed.`, 'NOTHING_TO_LAND');
  const land = async (kind: LandedKind, commit: string, changesAhead?: Promise<PathChange[]>, inTheWayAhead?: Promise<string[]>): Promise<LandedBranch> => {
    // What the move changes, read once for both checks: the nested repositories it would record, the files on disk it would overwrite.
    const changes = changesAhead ?? startEarly(treeChanges(repo, from, commit));
    // A nested repository the agent committed itself lands as a gitlink nobody can fetch: its files would be said landed and never arrive.
    const nested = await danglingGitlinks(repo, from, commit, changes);
    if (nested.length > 0) throw nestedRepositoryError(`${req.sourceName}'s commits`, nested);
    await advanceBranch(repo, target, from, commit, landingReason(kind, req.sourceName, target), checkedOut, changes, inTheWayAhead);
    return { kind, from, commit };
  };
  const fastForwardOnly = (setBy: string | null): Promise<LandedBranch> => {
    if (!canFastForward) {
      const wayOut = setBy === null ? 'merge, squash or rebase instead' : `git's ${setBy} allows a merge only as a fast-forward: squash or rebase instead`;
      throw failure(`${target} cannot be fast-forwarded to ${req.sourceName}: it has commits the branch lacks; nothing was changed (${wayOut}).`, 'NOT_FAST_FORWARD');
    }
    return land('ff', source);
  };
  switch (req.strategy) {
    case 'ff-only':
      return fastForwardOnly(null);
    case 'merge': {
      const { policy, setBy } = settings.fastForward;
      if (policy === 'only') return fastForwardOnly(setBy);
      // merge.ff=false: a merge commit even where a fast-forward would do (made below; none was made ahead).
      if (canFastForward && policy === 'allow') return land('ff', source);
      const ahead = await req.early?.merged;
      if (ahead) {
        if (!ahead.clean) throw conflictError(req, ahead.conflicts);
        const inTheWay = await req.early?.inTheWay;
        return land('merge', ahead.commit, ahead.changes, inTheWay ? Promise.resolve(inTheWay) : undefined);
      }
      const tree = await mergedTree(req, from);
      const message = committedMessage(await withMergeLog(repo, req.message, from, source, req.sourceName, settings.log), settings.cleanup);
      return land('merge', await commitTree(repo, tree, [from, source], message, undefined, settings.gpgSign, 'as given'));
    }
    case 'squash': {
      const tree = await mergedTree(req, from);
      if (tree === (await treeOf(repo, from))) throw failure(`${req.sourceName} changes nothing in ${target}; nothing was changed.`, 'NOTHING_TO_LAND');
      return land('squash', await commitTree(repo, tree, [from], committedMessage(req.message, settings.squashCleanup), undefined, settings.gpgSign));
    }
    case 'rebase': {
      if (canFastForward) return land('ff', source);
      await assertRebasable(req, from);
      const [rebased, merged] = await Promise.all([rebaseInScratch(req, from), mergeTrees(repo, from, source)]);
      if (rebased === from) throw failure(`${req.sourceName}'s changes are already in ${target}; nothing was changed.`, 'NOTHING_TO_LAND');
      // Landed is said (and recorded, and cleanup trusts it) only when the rebase holds what a merge would.
      if (merged.clean && merged.tree !== (await treeOf(repo, rebased))) {
        throw failure(`Rebasing ${req.sourceName} onto ${target} gives different files than merging it would; nothing was changed (merge or squash instead).`, 'REBASE_DIFFERS');
      }
      return land('rebase', rebased);
    }
  }
}

async function mergedTree(req: LandBranchRequest, from: string): Promise<string> {
  const merged = await mergeTrees(req.repo, from, req.source, req.settings);
  if (!merged.clean) throw conflictError(req, merged.conflicts);
  return merged.tree;
}

function conflictError(req: LandBranchRequest, files: readonly string[]): LandingConflict {
  const n = files.length;
  return new LandingConflict(
    `${req.sourceName} conflicts with ${req.target} in ${n} file${n === 1 ? '' : 's'} (${fewPaths(files)}); nothing was changed — Resolve in Agent's Worktree (paddock update) brings ${req.target} into the agent's branch to resolve them there.`,
    files,
  );
}

/** Refuses a rebase that would drop what the agent's merge commits carry. */
async function assertRebasable(req: LandBranchRequest, onto: string): Promise<void> {
  const merges = await mergeCommitsBetween(req.repo, onto, req.source);
  if (merges === 0) return;
  throw failure(
    `${req.sourceName} has ${merges} merge commit${merges === 1 ? '' : 's'}, whose changes a rebase would drop; nothing was changed (merge or squash instead).`,
    'REBASE_MERGES',
  );
}

/** The agent's commits replayed onto `onto` in a temporary worktree; the new tip. */
async function rebaseInScratch(req: LandBranchRequest, onto: string): Promise<string> {
  return withLandingWorktree(req.repo, req.scratchRoot, req.source, async (worktree) => {
    const res = await runGit(['rebase', '--quiet', '--no-autosquash', onto], { cwd: worktree, allowFailure: true, env: { GIT_EDITOR: 'true' }, config: { ...LANDING_GIT_CONFIG, ...REBASE_CONFIG } });
    if (res.code !== 0) {
      const files = await unmergedPaths(worktree);
      await runGit(['rebase', '--abort'], { cwd: worktree, allowFailure: true, config: { ...LANDING_GIT_CONFIG, ...REBASE_CONFIG } });
      if (files.length > 0) throw conflictError(req, files);
      throw failure(`Rebasing ${req.sourceName} onto ${req.target} failed: ${firstLine(res.stderr) || `exit code ${res.code}`}${identityHint(res.stderr)}; nothing was changed.`);
    }
    return headCommit(worktree);
  });
}

/**
 * Paths left conflicted in a working tree by a merge or rebase that stopped: the index's entries
 * at a stage above 0 ("<mode> <id> <stage>\t<path>"). Read from the index alone — `git diff
 * --diff-filter=U` would first compare every file on disk with it (~80 ms in a 5,000-file worktree).
 */
export async function unmergedPaths(worktree: string): Promise<string[]> {
  const res = await runGit(['ls-files', '--unmerged', '-z'], { cwd: worktree, allowFailure: true, names: true });
  return [...new Set(res.stdout.split('\0').flatMap((entry) => (entry.includes('\t') ? [entry.slice(entry.indexOf('\t') + 1)] : [])))];
}
