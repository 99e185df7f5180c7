/** Merge into Base: lands the agent's branch on its base (or another branch) — merge, squash, rebase or fast-forward only. */
import * as path from 'node:path';
import { failure, PaddockError, usageError } from '../common/errors';
import {
  ancestry,
  assertMergeSignature,
  assertTargetLandable,
  branchTips,
  earlierLanding,
  landBranch,
  listWorktrees,
  lookAtTarget,
  mergeAhead,
  mergeConfigForTarget,
  mergeSettingsFrom,
  readLanding,
  readMergeConfig,
  unhonouredSettingProblem,
  untrackedInTheWay,
  type LandedBranch,
  type LandingReads,
  type LandStrategy,
  type MergedAhead,
  type MergeSettings,
  type TargetLooks,
} from '../git';
import type { JobRecord } from '../store/schema';
import type { OperationContext } from './context';
import { noAgentBranch, prepareAgentWorkReporting, readAgentWorkEarly, stopsFirst, titleLine, type LandingChoices } from './landingPrep';
import { landingTarget } from './landingTarget';
import { refuseEmptyMessageEarly } from './landingMessage';
import { refuseLiveAgentWorktree } from './liveAgentTarget';
import { recordLanding } from './recordLanding';
import { landBlocker } from './rules';
import { startEarly, settlingOnError } from '../common/early';
import { refuseDroppedBase } from './droppedBaseCheck';

export interface MergeRequest extends LandingChoices {
  into?: string;
  strategy?: LandStrategy;
  message?: string;
  /** A plain merge only, as `git merge --ff` / `--no-ff` on its command line: over `merge.ff` and the target's mergeOptions. */
  fastForward?: 'allow' | 'never';
}

export interface MergeReport {
  job: JobRecord;
  kind: 'merge' | 'squash' | 'rebase' | 'ff';
  into: string;
  from: string;
  commit: string;
  /** Landed by an earlier run that was stopped before it recorded it: recorded by this one. */
  earlier?: true;
}

/** Where temporary landing worktrees live: the store's own folder, so they are Paddock's to remove. */
export function landingScratch(ctx: OperationContext): string {
  return path.join(ctx.store.home, 'landing');
}

export function defaultMergeMessage(job: JobRecord, strategy: LandStrategy, into: string): string {
  const title = titleLine(job);
  if (strategy === 'squash') return `${title}\n\nSquashed from ${job.branch} (Paddock agent ${job.id}).\n`;
  return `Merge branch '${job.branch}' into ${into}\n\n${title} (Paddock agent ${job.id}).\n`;
}

/**
 * Under the job's lock (the caller's). The read-only questions are asked at once (on a large
 * repository each is a git process of tens of milliseconds): where it lands, whether the agent's
 * worktree holds uncommitted work, where the target is checked out and whether it is clean, and
 * the two tips and their ancestry. A true merge's commit is made meanwhile too (objects only).
 * Their refusals come in the order they always did, and what may change state comes first: when
 * the agent is stopped or its work committed, whatever was read about the branches before is let
 * finish and read again after.
 */
/** Why `message`, given by the person, cannot be a merge's or squash's commit message, or null when it can (the CLI and the window ask this one rule). */
export function landingMessageProblem(message: string): string | null {
  // git's own `commit` refuses an empty message; commit-tree, which lands it, would write one on the base.
  if (message.trim() === '') return "A commit message needs text (without --message, one is made from the agent's title).";
  return null;
}

export async function mergeLocked(ctx: OperationContext, id: string, req: MergeRequest): Promise<MergeReport> {
  const messageProblem = req.message === undefined ? null : landingMessageProblem(req.message);
  if (messageProblem) throw usageError(messageProblem);
  // A caller the type does not bind (a command's argument) could pass anything, and 'only' would act as merge.ff=only.
  if (req.fastForward !== undefined && req.fastForward !== 'allow' && req.fastForward !== 'never') {
    throw usageError(`A merge's fastForward is "allow" (--ff) or "never" (--no-ff), not ${JSON.stringify(req.fastForward)}; nothing was changed.`);
  }
  let job = await ctx.store.read(id);
  const blocked = landBlocker(job);
  if (blocked) throw usageError(blocked);
  const strategy = req.strategy ?? 'merge';
  const { repo, branch } = job;
  const target = startEarly(landingTarget(job, req.into));
  const uncommitted = readAgentWorkEarly(job, req);
  const messageFor = (into: string): string => req.message ?? defaultMergeMessage(job, strategy, into);
  const readsBranches = !stopsFirst(job, req);
  // The target is most often the branch checked out in the main worktree: its status, the longest read beside the agent's, begins next.
  const guess = readsBranches ? lookAtTarget(repo) : null;
  // git merge's settings (merge.ff, the target's mergeOptions…), followed or refused as `mergeSettings` says; a rebase is no git merge.
  // Their one process needs no target: it begins before the target is known.
  const config = strategy === 'rebase' ? null : startEarly(readMergeConfig(repo));
  // Read again, as git merge would with the target checked out, only when an includeIf or a worktree's own config may say otherwise there.
  const settings =
    config === null
      ? null
      : startEarly(
          Promise.all([config, target]).then(async ([entries, into]) => withCommandLine(mergeSettingsFrom(await mergeConfigForTarget(repo, into, entries, undefined, landingScratch(ctx)), into), req)),
        );
  const ahead = guess === null ? null : readBranchesEarly(repo, branch!, target, strategy === 'merge' ? messageFor : null, settings, guess);
  // The merge made ahead goes on to read what it changes: a refusal waits for that too.
  const mergedReads = ahead?.merged ? startEarly(ahead.merged.then((m) => (m?.clean ? m.changes : null))) : null;
  const pending = [target, config, settings, uncommitted, ahead?.tips, ahead?.reads, ahead?.merged, mergedReads, ahead?.inTheWay, ...(ahead?.guessed ?? [])];
  const landed = await settlingOnError(pending, () => landLocked());
  // A guess at the target's worktree that proved wrong may still be reading: nothing of the merge is left running.
  await Promise.allSettled(ahead?.guessed ?? []);
  return landed;

  async function landLocked(): Promise<MergeReport> {
    const into = await target;
    // Commits the target held once and lost since the agent started are not the agent's: refused before anything changes.
    const dropCheck = { how: strategy === 'rebase' ? ('rebase' as const) : ('merge' as const) };
    const judged = await refuseDroppedBase(job, into, 'landing', dropCheck);
    const followed = (await settings) ?? undefined;
    // Refused before anything changes (the agent stopped, its work committed), as the settings are git's, not the agent's.
    const unhonoured = followed ? unhonouredSettingProblem(followed, strategy, into) : null;
    if (unhonoured !== null) throw failure(unhonoured, 'GIT_SETTING');
    // A message git's cleanup would leave empty, refused before the agent is stopped or its work committed.
    if (followed) {
      const tips = ahead?.tips;
      // Work to commit: known when read early; a running agent to be stopped may yet leave some. A read that failed refuses later, for itself.
      const commitsFirst = req.uncommitted === 'commit' && (uncommitted === null || uncommitted.then((w) => w.dirty, () => false));
      await refuseEmptyMessageEarly({ repo, branch: branch!, into, strategy, message: messageFor(into), settings: followed, commitsFirst, tips });
    }
    // The tip's signature (merge.verifySignatures) before the agent is stopped: a refusal then stops
    // nothing. Not when its work is to be committed first: that commit is the tip git would check.
    let signedTip: string | null = null;
    if (followed?.verifySignatures && strategy !== 'rebase' && req.uncommitted !== 'commit') {
      const [tipNow] = ahead !== null ? await ahead.tips : await branchTips(repo, [branch!, into]);
      if (tipNow) await assertMergeSignature(repo, tipNow, branch!, followed.verifySignatures, followed.minTrustLevel);
      signedTip = tipNow;
    }
    const prepared = await prepareAgentWorkReporting(ctx.store, job, req, { uncommitted, log: (m) => ctx.log(m) });
    job = prepared.job;
    const early = ahead !== null && !prepared.changed ? ahead : null;
    if (early === null) await Promise.allSettled(pending);
    const [source, from] = early !== null ? await early.tips : await branchTips(repo, [branch!, into]);
    if (source === null) throw noAgentBranch(job);
    // A tip the commit of the agent's work (or the stopped agent) moved is judged again: whether the whole branch
    // conflicts, which lets a conflicting dropped start go to the landing's own sentence, is the landed tip's (bug 215).
    if (source !== judged) await refuseDroppedBase(job, into, 'landing', { ...dropCheck, source });
    const landing = landBranch({
      repo,
      target: into,
      source,
      sourceName: branch!,
      strategy,
      message: messageFor(into),
      // The tip checked above is not checked again; a tip the stop or the commit moved is.
      settings: followed && source === signedTip ? { ...followed, verifySignatures: null } : followed,
      checkTarget: (worktree) => refuseLiveAgentWorktree(ctx.store, into, worktree),
      scratchRoot: landingScratch(ctx),
      early: { from, reads: early?.reads, merged: early?.merged, inTheWay: early?.inTheWay },
    });
    // Nothing left to land may be this very landing, killed once the target had moved and before it was recorded.
    const landed = await landing.catch(async (err: unknown) => (await unrecordedLanding(err, job, into, source, followed)) ?? Promise.reject(err));
    if ('earlier' in landed) {
      ctx.log(`agent ${id}: ${landed.kind} into ${into} at ${landed.commit.slice(0, 12)} was landed before and not recorded; recorded now`);
      job = await recordLanding(ctx.store, id, { kind: landed.kind, into, commit: landed.commit, url: null, branchHead: source, foundLater: true });
      return { job, ...landed, into };
    }
    const setBy = strategy === 'merge' ? followed?.fastForward.setBy : null;
    ctx.log(`agent ${id}: ${landed.kind} into ${into} (${landed.from.slice(0, 12)} → ${landed.commit.slice(0, 12)})${setBy ? `, as git's ${setBy} says` : ''}`);
    job = await recordLanding(ctx.store, id, { kind: landed.kind, into, commit: landed.commit, url: null, branchHead: source });
    return { job, ...landed, into };
  }
}

/**
 * A landing's "nothing to land" that is an earlier landing of this very tip, proved from the target's
 * reflog (`earlierLanding`) and not recorded yet (a landing recorded already is only said again).
 */
async function unrecordedLanding(err: unknown, job: JobRecord, into: string, source: string, settings?: MergeSettings): Promise<(LandedBranch & { earlier: true }) | null> {
  if (!(err instanceof PaddockError) || err.code !== 'NOTHING_TO_LAND') return null;
  const earlier = await earlierLanding(job.repo, into, source, job.branch!, settings).catch(() => null);
  if (earlier === null || (job.landing?.into === into && job.landing.commit === earlier.commit)) return null;
  return { ...earlier, earlier: true };
}

/** The person's `--ff` / `--no-ff` over git's settings, as git's command line goes over its config. */
function withCommandLine(settings: MergeSettings, req: MergeRequest): MergeSettings {
  if (req.fastForward === undefined || (req.strategy ?? 'merge') !== 'merge') return settings;
  return { ...settings, fastForward: { policy: req.fastForward, setBy: null } };
}

interface BranchesReadEarly {
  tips: Promise<(string | null)[]>;
  reads: Promise<LandingReads | null>;
  merged: Promise<MergedAhead | null> | null;
  /** `untrackedInTheWay` for the merge made ahead, once its changes and the target's worktree are known. */
  inTheWay: Promise<string[] | null> | null;
  /** The reads of the worktree guessed to hold the target, to let finish. */
  guessed: Promise<unknown>[];
}

/**
 * The agent's and the target's tips (one git process), then whether the target may be landed on and
 * their ancestry, begun early; with `message`, a true merge's commit as well (`mergeAhead`), and
 * whether its move would overwrite files git does not track. The target is most often the branch
 * checked out in the main worktree: `guess`, that worktree's reads begun by the caller first, before the list says so.
 */
function readBranchesEarly(
  repo: string,
  branch: string,
  target: Promise<string>,
  message: ((into: string) => string) | null,
  settings: Promise<MergeSettings> | null,
  guess: TargetLooks,
): BranchesReadEarly {
  const worktrees = startEarly(listWorktrees(repo));
  const checkedOut = startEarly(target.then((into) => assertTargetLandable(repo, into, worktrees, guess)));
  const tips = startEarly(target.then((into) => branchTips(repo, [branch, into])));
  const both = startEarly(
    Promise.all([target, tips]).then(([into, [source, from]]) => (source !== null && from !== null ? { into, source, from, related: startEarly(ancestry(repo, source, from)) } : null)),
  );
  const reads = startEarly(both.then((b) => (b !== null ? readLanding(repo, b.into, b.source, b.from, checkedOut, b.related) : null)));
  // Its commit is signed (or not) and its histories allowed unrelated as the settings say: made once they are read.
  const merged =
    message === null ? null : startEarly(Promise.all([both, settings]).then(([b, s]) => (b !== null ? mergeAhead(repo, b.source, branch, b.from, b.related, message(b.into), s ?? undefined) : null)));
  const inTheWay =
    merged === null
      ? null
      : startEarly(
          Promise.all([merged, checkedOut, both]).then(([m, worktree, b]) => (m?.clean && worktree !== null && b !== null ? untrackedInTheWay(worktree, b.from, [m.commit], m.changes) : null)),
        );
  return { tips, reads, merged, inTheWay, guessed: [guess.busy, guess.changes] };
}
