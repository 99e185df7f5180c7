/**
 * How an ended agent's detail speaks of the processes it left running: derived here, and only
 * here, from the record's fields — `leftoversFate` (how many, what became of them), `leftovers`
 * (what still runs, as the last reader judged it) and `leftoversEnder` (the worker ending them,
 * or found gone). The stored detail keeps only how the agent ended, so nothing ever rewrites it
 * as they exit, are ended or stopped: every reader and presenter (the CLI's `list`/`show`, the
 * tree, the terminal's end notice, notifications, the timeline) shows `lifecycleDetail(job)`. It says
 * a failed launch's kept worktree the same way, from `keptWorktree` (keptWorktree.ts).
 */
import { keptWords } from './keptWorktree';
import { isTerminalState, type JobRecord, type LeftoversFate } from './schema';

/** "1 process", "2 processes" */
export function processCount(n: number): string {
  return `${n} process${n === 1 ? '' : 'es'}`;
}

/**
 * The record's `leftoversFate` when it speaks of the generation the record shows. An older Paddock's
 * retry keeps the field it does not know (its schema lets unknown fields through), so the first
 * run's fate would be said of the next; one without a generation was written before fates named
 * theirs and cannot be placed, so it says nothing either (the listing still shows what runs).
 */
export function currentFate(job: JobRecord): LeftoversFate | undefined {
  const fate = job.leftoversFate;
  return fate && fate.generation === job.lifecycle.generation ? fate : undefined;
}

/** The detail as the person is to read it: how the agent ended, its kept worktree (until Clean Up removed it), then what it left running. */
export function lifecycleDetail(job: JobRecord): string | null {
  const words = leftoverWords(job);
  const kept = keptWords(job);
  const stored = job.lifecycle.detail;
  const detail = kept ? (stored ? `${stored}; ${kept}` : kept) : stored;
  if (!words) return detail;
  return detail ? `${detail}; ${words}` : words;
}

/**
 * What became of the processes the ended agent left running, in words; undefined when the record says
 * nothing of them — or was written before `leftoversFate`, whose detail carries its words as written.
 */
export function leftoverWords(job: JobRecord): string | undefined {
  const fate = currentFate(job);
  if (!fate || !isTerminalState(job.lifecycle.state)) return undefined;
  if (fate.outcome === 'stopped') return `stopped ${processCount(fate.count)} it left running`;
  if (fate.outcome === 'ended') {
    const parts = fate.count > 0 ? [`ended ${processCount(fate.count)} it left running`] : [];
    // What outlived its SIGKILL, as it named them: still running only while the listing (pruned by
    // every reader as they exit) has any; once it is empty, they exited (bug 148).
    if (fate.survivors) parts.push(`${(job.leftovers?.length ?? 0) > 0 ? 'still running' : 'since exited'}: ${fate.survivors}`);
    return parts.join('; ') || undefined;
  }
  const ender = job.leftoversEnder;
  const listed = job.leftovers?.length ?? 0;
  // Settled with none left (they exited within the grace): nothing to say.
  if (fate.count === 0 && listed === 0 && !ender) return undefined;
  if (ender && !ender.gone) return `ending ${processCount(fate.count)} it left running`;
  // What still runs as the last reader judged it: a count of the end's would outlive the ones that exited.
  if (listed > 0) return `left ${processCount(listed)} running`;
  // Its ender gone and nothing listed: one may have forked a marked process; the lead pass looks first.
  if (ender) return `left ${processCount(fate.count)} running`;
  return `the ${processCount(fate.count)} it left running exited`;
}
