/**
 * A target branch moved back (or rewritten) after the agent started: the agent's branch still holds
 * the commits it started on, which the target once had and no longer has. git would land them again
 * with the agent's work — a merge or rebase carries them, a squash or an apply puts their changes back —
 * so the person's own `reset --hard` (or amend, or rebase) would be undone without a word.
 *
 * "Once had" is read from the target's reflog: a branch that never held the start (a release branch
 * the agent's work is landed on with --into) is not this case, and git's own merge is what was asked.
 */
import { isCommitId } from './commitId';
import { printable } from '../common/printable';
import { mergeTrees, treeOf } from './mergeTree';
import { runGit } from './runGit';

/**
 * How the landing puts the agent's branch on the target, which decides what comes back:
 * - `rebase`: git rebase, which skips a commit whose patch the target already has (by patch-id);
 * - `merge`: a merge (or squash, or fast-forward) made in the object database, which a conflict refuses with nothing changed;
 * - `strict`: a conflict could still be resolved into the result by hand (a pull request on the forge; apply, whose
 *   source holds the worktree's uncommitted work too), so any difference counts.
 */
export type DroppedLanding = 'rebase' | 'merge' | 'strict';

/** How many of the target's recent positions are looked at (a reflog can be years long). */
const REFLOG_LOOK = 1000;

export interface DroppedBase {
  /** The commit the agent started from, which the target no longer has. */
  start: string;
  /** Its subject line, printable. */
  subject: string;
  /** How many commits of the agent's start the target no longer has (the start and those before it). */
  count: number;
}

/**
 * The agent's start commit (or a base commit `paddock update` brought in) when landing `source` (its
 * branch's tip) on `ref` (a local branch; for a pull request also the remote's branch as last fetched,
 * whose reflog records the fetches; for apply on a detached HEAD, HEAD) the way `how` says would bring
 * back commits the target held once and no longer has; null otherwise, and when git cannot say (no reflog,
 * a pruned object, a reflog entry expired by gc): the landing then goes on as it always did.
 */
export async function droppedBase(repo: string, start: string | null, source: string, ref: string, how: DroppedLanding = 'strict', positions?: string[]): Promise<DroppedBase | null> {
  if (start === null || !isCommitId(start)) return null;
  // Asked first, as it settles the usual case in one process: the target still has where the agent started.
  if (await ancestor(repo, start, ref)) return null;
  // The agent's branch no longer builds on its start (rebased elsewhere by hand): none of it lands.
  if (!(await ancestor(repo, start, source))) return null;
  // `positions`: the target's past read by the caller (a detached HEAD's, detachedHeadReflog.ts), else `ref`'s reflog.
  const held = positions !== undefined ? [...new Set(positions)] : await reflogPositions(repo, ref);
  if (held.length === 0) return null;
  // Reachable from none of the target's past positions: `start` never was on it. (`^` lines: git before 2.42 takes no --not on stdin.)
  const never = await runGit(['rev-list', '--count', '--stdin'], { cwd: repo, input: `${start}\n${held.map((h) => `^${h}`).join('\n')}\n`, allowFailure: true });
  if (never.code !== 0 || never.stdout.trim() !== '0') return null;
  // Decided by content: would the start bring anything the target lacks? A merge of the start into the target
  // that gives the target's own tree brings nothing back (after `git pull --rebase`, a message-only amend, the
  // start squashed with others); a different tree or a conflict does (a reset, a revert rewritten by a rebase,
  // which pairs the start with its copy by patch-id while the revert's undoing stays on the target).
  const tip = await runGit(['rev-parse', '--verify', '--end-of-options', `${ref}^{commit}`], { cwd: repo, allowFailure: true });
  if (tip.code !== 0) return null;
  const target = tip.stdout.trim();
  // git rebase replays only what the target lacks by patch-id: when it would skip every dropped commit (after `git
  // pull --rebase`, whatever the person changed since), none comes back. Not so when the target is the branch's
  // ancestor: the landing is then a fast-forward, which takes the branch whole.
  if (how === 'rebase' && (await rebaseSkipsAll(repo, target, start)) && !(await ancestor(repo, target, source))) return null;
  const [merged, tree, count, subject] = await Promise.all([
    mergeTrees(repo, target, start),
    treeOf(repo, target),
    // Only the number in the sentence: every commit of the start the target's history lacks.
    runGit(['rev-list', '--count', start, '--not', target, '--'], { cwd: repo, allowFailure: true }),
    runGit(['log', '-1', '--format=%s', start, '--'], { cwd: repo, allowFailure: true }),
  ]);
  if (merged.clean && merged.tree === tree) return null;
  // The start conflicts with what the target did since (its lines changed again): a merge of the whole branch that
  // conflicts too is refused by the landing's own sentence, nothing changed. One that is clean is refused here: what
  // of the start does not conflict would come back.
  if (!merged.clean && how === 'merge' && !(await mergeTrees(repo, target, source)).clean) return null;
  const n = Number(count.stdout.trim());
  return { start, subject: printable(subject.stdout.trim()).slice(0, 80), count: count.code === 0 && n > 0 ? n : 1 };
}

/**
 * The one sentence a landing (or a rebase onto the target) refused for it says, `verb` being what it would have done;
 * `updated`: the commit is one `paddock update` brought in, not the start; `onto`: what the way out rebases onto, when
 * `target` is no name to give git in the agent's worktree (a detached HEAD is the main worktree's, not the agent's).
 */
export function droppedBaseProblem(jobId: string, target: string, dropped: DroppedBase, verb: string, opts: { updated?: boolean; onto?: string } = {}): string {
  const short = dropped.start.slice(0, 12);
  const more = dropped.count > 1 ? ` and ${dropped.count - 1} commit${dropped.count === 2 ? '' : 's'} before it` : '';
  return (
    `Agent ${jobId} ${opts.updated ? 'was updated to' : 'started from'} ${short} (${dropped.subject})${more}, which ${target} no longer has: ${target} was moved back or rewritten since, ` +
    `and ${verb} would bring ${dropped.count === 1 ? 'it' : 'them'} back as the agent's work; nothing was changed. ` +
    `To land only the agent's own commits, rebase them in its worktree first: git rebase --onto ${opts.onto ?? target} ${short}.`
  );
}

async function reflogPositions(repo: string, ref: string): Promise<string[]> {
  const log = await runGit(['log', '-g', `-n${REFLOG_LOOK}`, '--format=%H', '--end-of-options', ref], { cwd: repo, allowFailure: true });
  return log.code === 0 ? [...new Set(log.stdout.split('\n').filter(isCommitId))] : [];
}

/** Whether `git rebase <target>` would skip every commit of `start` the target lacks (each one's patch is on the target). */
async function rebaseSkipsAll(repo: string, target: string, start: string): Promise<boolean> {
  const res = await runGit(['rev-list', '--count', '--cherry-pick', '--right-only', '--no-merges', '--end-of-options', `${target}...${start}`, '--'], { cwd: repo, allowFailure: true });
  return res.code === 0 && res.stdout.trim() === '0';
}

async function ancestor(repo: string, a: string, b: string): Promise<boolean> {
  const res = await runGit(['merge-base', '--is-ancestor', a, b], { cwd: repo, allowFailure: true });
  return res.code === 0;
}
