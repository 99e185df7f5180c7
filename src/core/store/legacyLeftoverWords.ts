/**
 * What earlier versions of Paddock wrote about an ended agent's leftovers, read as this one means
 * it (a step of readAsThisVersion, migrations.ts): words at the end of the detail (before
 * `leftoversFate`), and a fate an older Paddock's retry carried into the next generation.
 */
import { isTerminalState, type JobRecord, type Leftover, type LeftoversFate } from './schema';

/** One process as the earlier worker named it, `pid (command line)`; the last may be cut by the detail's cap (`…`). */
const SURVIVOR = '\\d+ \\(.*\\)';
const SURVIVORS = `(?:${SURVIVOR}(?:, ${SURVIVOR})*(?:, \\d+ \\(.*…)?|\\d+ \\(.*…)`;

/**
 * The words on what an ended agent left running that Paddock before `leftoversFate` wrote at the
 * end of the detail (its worker, its readers, the lead pass and Stop rewrote them there). Kept in
 * the detail, nothing updates them any more, so a row could say a process runs when none does, for
 * good. Anchored at the end, after "; " (the detail itself is "exit N" / "killed by SIG…"), and what
 * it names as still running must read as that worker's list of processes.
 */
const LEGACY_LEFTOVER_WORDS = new RegExp(
  '(?:^|; )(?:' +
    [
      '(?:ending|left) (?<listed>\\d+) process(?:es)?(?: it left)? running',
      'the (?<exited>\\d+) process(?:es)? it left running exited',
      'stopped (?<stopped>\\d+) process(?:es)? it left running',
      `ended (?<ended>\\d+) process(?:es)? it left running(?:; still running: (?<survivors>${SURVIVORS}))?`,
      // The worker ended none, and some outlived its SIGKILL.
      `still running: (?<outlived>${SURVIVORS})`,
    ].join('|') +
    ')$',
  's',
);

/** The record's leftovers listing holds at most this many (its schema's limit). */
const MAX_LISTED = 50;

/**
 * A fate of another generation than the record's, or naming none (written before fates named
 * theirs, so it cannot be placed): dropped, so nothing says it of this generation and its next
 * write leaves it behind. The listing (what still runs) is kept: it is judged by what runs.
 */
export function withoutOtherGenerationsFate(job: JobRecord): JobRecord {
  if (!job.leftoversFate || job.leftoversFate.generation === job.lifecycle.generation) return job;
  const { leftoversFate: _other, ...rest } = job;
  return rest;
}

/**
 * Such words split off the detail into `leftoversFate`, whose words leftoverWords.ts derives from
 * the record as it is now. Run whenever they are there, not once: a worker of the earlier version
 * still running after an upgrade writes them again with its end and after ending what was left. Not
 * over a fate that says what became of them (its outcome): such words are then the detail's own.
 */
export function withLeftoverWordsLifted(job: JobRecord): JobRecord {
  const detail = job.lifecycle.detail;
  if (!detail || !isTerminalState(job.lifecycle.state) || job.leftoversFate?.outcome) return job;
  const m = LEGACY_LEFTOVER_WORDS.exec(detail);
  if (!m?.groups) return job;
  const { listed, exited, stopped, ended, survivors, outlived } = m.groups;
  const named = survivors ?? outlived;
  const generation = job.lifecycle.generation;
  const fate: LeftoversFate =
    stopped !== undefined
      ? { count: Number(stopped), outcome: 'stopped', generation }
      : ended !== undefined || named !== undefined
        ? { count: Number(ended ?? 0), outcome: 'ended', ...(named ? { survivors: named } : {}), generation }
        : { count: Number(listed ?? exited), generation };
  const leftovers = named ? withSurvivorsListed(job.leftovers ?? [], named) : job.leftovers;
  return { ...job, lifecycle: { ...job.lifecycle, detail: detail.slice(0, m.index) || null }, leftoversFate: fate, ...(leftovers ? { leftovers } : {}) };
}

/**
 * What outlived the earlier worker's SIGKILL, listed: that worker did not list them (a survivor it
 * had not found at the agent's exit was on no list), and the words say "still running" only while
 * the listing has them (leftoverWords.ts). Its words give no start time, so each reader judges them
 * by their pid alone (leftoverCheck.ts) and drops them once gone; Stop signals only listed processes
 * with a start time, and finds these by the agent's marker.
 */
function withSurvivorsListed(listed: readonly Leftover[], named: string): Leftover[] {
  const out = [...listed];
  for (const one of named.split(/, (?=\d+ \()/)) {
    const m = /^(\d+) \((.*?)(?:\)|…)$/s.exec(one);
    if (!m || out.length >= MAX_LISTED || out.some((p) => p.pid === Number(m[1]))) continue;
    out.push({ pid: Number(m[1]), command: m[2] || '?' });
  }
  return out;
}
