/**
 * A landing of an agent's branch that moved its target and was never recorded: the process was
 * killed between the move and the record. Run again, the landing finds nothing left to land; this
 * says whether that is because this very branch tip was landed by Paddock — then the caller records
 * it — or for any other reason (the person landed the same changes by hand: nothing is recorded).
 *
 * Proof, from the target's reflog and the commits alone: an entry in the words the landing writes
 * (`landingReason`: this branch, into this target, by kind), the entry before it (the target's
 * commit the landing started from), the landed commit still on the target, and the commit made
 * exactly as that landing makes it from this tip — a fast-forward to the tip, a merge commit of
 * the two, a squash or replay holding the very tree a merge of the tip gives. A reflog that is off,
 * expired or rewritten proves nothing, and nothing is recorded.
 */
import { mergeCommitsBetween, mergeTrees, treeOf } from './mergeTree';
import { runGit } from './runGit';
import type { MergeSettings } from './mergeSettings';

export type LandedKind = 'merge' | 'squash' | 'rebase' | 'ff';

/** How far back in the target's reflog a landing is looked for: it was the last thing done, or nearly. */
const REFLOG_ENTRIES = 200;

/** The reflog message of a landing's move of its target (`git merge --ff-only` adds `: Fast-forward` to it). */
export function landingReason(kind: LandedKind, sourceName: string, target: string): string {
  return `paddock ${kind}: ${sourceName} into ${target}`;
}

export interface EarlierLanding {
  kind: LandedKind;
  /** Where the target was before it. */
  from: string;
  /** The commit it moved the target to. */
  commit: string;
}

/** The most recent unrecorded-or-not Paddock landing of `source` on `target` that the reflog and the commits prove, or null. */
export async function earlierLanding(repo: string, target: string, source: string, sourceName: string, settings?: MergeSettings): Promise<EarlierLanding | null> {
  const ref = `refs/heads/${target}`;
  const log = await runGit(['log', '-g', `-n${REFLOG_ENTRIES}`, '--format=%H%x09%gs', '--end-of-options', ref, '--'], { cwd: repo, allowFailure: true });
  if (log.code !== 0) return null;
  const entries = log.stdout.split('\n').filter((l) => l.includes('\t')).map((l) => ({ commit: l.slice(0, l.indexOf('\t')), subject: l.slice(l.indexOf('\t') + 1) }));
  // Newest first: each entry's predecessor is where that move started.
  for (let i = 0; i + 1 < entries.length; i++) {
    const kind = kindOf(entries[i].subject, sourceName, target);
    if (kind === null) continue;
    const landed = { kind, from: entries[i + 1].commit, commit: entries[i].commit };
    if (await proves(repo, ref, source, landed, settings)) return landed;
  }
  return null;
}

function kindOf(subject: string, sourceName: string, target: string): LandedKind | null {
  const kinds: LandedKind[] = ['merge', 'squash', 'rebase', 'ff'];
  return kinds.find((k) => subject === landingReason(k, sourceName, target) || subject.startsWith(`${landingReason(k, sourceName, target)}: `)) ?? null;
}

async function proves(repo: string, ref: string, source: string, landed: EarlierLanding, settings?: MergeSettings): Promise<boolean> {
  const { kind, from, commit } = landed;
  // Undone since (the target reset past it): nothing stands to record.
  const onTarget = await runGit(['merge-base', '--is-ancestor', '--end-of-options', commit, ref], { cwd: repo, allowFailure: true });
  if (onTarget.code !== 0) return false;
  if (kind === 'ff') return commit === source;
  const parents = (await runGit(['rev-list', '--parents', '-n1', '--end-of-options', commit], { cwd: repo })).stdout.trim().split(' ').slice(1);
  if (kind === 'merge') return parents.length === 2 && parents[0] === from && parents[1] === source;
  if (kind === 'squash' && (parents.length !== 1 || parents[0] !== from)) return false;
  if (kind === 'rebase') {
    const fromIn = await runGit(['merge-base', '--is-ancestor', '--end-of-options', from, commit], { cwd: repo, allowFailure: true });
    if (commit === from || fromIn.code !== 0 || (await mergeCommitsBetween(repo, from, commit)) !== 0) return false;
  }
  // A squash or a replay of this tip holds what merging it on `from` gives: the same tree.
  const merged = await mergeTrees(repo, from, source, settings);
  return merged.clean && merged.tree === (await treeOf(repo, commit));
}
