/**
 * A failed launch's worktree and branch left to Clean Up (bug 132), and the words said of them. The
 * record keeps them in `keptWorktree` (branch, why, generation), written with the failure; the detail
 * keeps only why the launch failed, and `lifecycleDetail` (leftoverWords.ts), the one presenter, adds
 * these words while they are true: of the generation shown, until Clean Up has removed the worktree
 * (what cleanup did is its own line). Records written before the field carry the words inside their
 * detail, after KEPT_MARK: read, they are lifted into it (`withKeptWordsLifted`) and shown the same, except
 * that one cut at its cap (2,000 characters) inside the words is shown with them whole, once.
 */
import { isTerminalState, type JobRecord } from './schema';

const KEPT_MARK = '; its worktree and branch ';
const WHAT_NEXT = ': paddock cleanup captures the work in them before it removes the worktree (a branch with commits of its own stays); a retry runs on top of that work';

/** Why kept, and what Clean Up and a retry then do with it — true of both. */
export function keptWorktreeWords(branch: string, why: string): string {
  return `${KEPT_MARK.slice(2)}${branch} are kept, ${why}${WHAT_NEXT}`;
}

/** The words on the kept worktree to show, if any: of the generation shown, once ended, until Clean Up removed it. */
export function keptWords(job: Pick<JobRecord, 'lifecycle' | 'cleanup' | 'keptWorktree'>): string | undefined {
  const kept = job.keptWorktree;
  if (!kept || kept.generation !== job.lifecycle.generation || !isTerminalState(job.lifecycle.state)) return undefined;
  return job.cleanup?.phase === 'complete' ? undefined : keptWorktreeWords(kept.branch, kept.why);
}

/** A record written before `keptWorktree`: the words its detail ends with, lifted into the field. */
export function withKeptWordsLifted(job: JobRecord): JobRecord {
  const detail = job.lifecycle.detail;
  const at = detail && !job.keptWorktree ? detail.indexOf(KEPT_MARK) : -1;
  if (at < 0) return job;
  const m = /^(\S+) are kept, ([\s\S]*)$/.exec(detail!.slice(at + KEPT_MARK.length));
  // Cut before its reason (a detail at its cap): left as written.
  if (!m) return job;
  const why = m[2].slice(0, m[2].length - whatNextCutAt(m[2]));
  const keptWorktree = { branch: m[1], why, generation: job.lifecycle.generation };
  return { ...job, lifecycle: { ...job.lifecycle, detail: detail!.slice(0, at) }, keptWorktree };
}

/**
 * How much of `text`'s end is WHAT_NEXT, whole or cut short: a detail cut at its cap (2,000 characters) ends
 * inside these words, and what is left of them is no part of the reason. Kept there, the presenter's whole
 * sentence would follow its cut piece: the words said one and a half times (bug 166). Only a cut detail ends
 * short of the whole sentence, so its longest end that begins the sentence is that piece.
 */
function whatNextCutAt(text: string): number {
  for (let n = Math.min(text.length, WHAT_NEXT.length); n > 0; n--) if (text.endsWith(WHAT_NEXT.slice(0, n))) return n;
  return 0;
}
