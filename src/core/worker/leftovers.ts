/**
 * When an agent's main process ends, what it started may run on: Codex's own
 * `app-server` daemon (in a new session, ~160 MB) outlives it, and nothing of
 * an ended agent should. After a short grace for them to exit by themselves,
 * the worker ends every process still carrying the job's marker or in the
 * agent's session (TERM, then KILL after the stop grace). The setting
 * `paddock.endLeftoversOnExit` turns it off: then they are listed on the record
 * (with their start times, so a reused pid is never shown as one of them) and
 * Stop ends them.
 */
import { bootId, commandLineOf, treeMembers, type ProcStat } from '../proc';
import type { Leftover } from '../store';
import { AGENT_MARKER_ENV } from './agentMarker';
import { processCount } from '../operations/leftovers';
import { describeSurvivors, stopAgentProcesses, type NamedProcess } from './stopAgent';
import { setTimeout as sleep } from 'node:timers/promises';

/** How long leftovers get to exit on their own once the agent has ended. */
export const LEFTOVER_GRACE_MS = 1000;
/** The record lists at most this many (its schema's limit). */
const MAX_LISTED = 50;


/** Live processes of the agent other than its ended main process (a zombie until reaped) and this worker. */
export async function leftovers(jobId: string, sid: number): Promise<ProcStat[]> {
  const live = await treeMembers(sid, { name: AGENT_MARKER_ENV, value: jobId });
  const byPid = new Map(live.map((p) => [p.pid, p]));
  byPid.delete(process.pid);
  byPid.delete(sid);
  return [...byPid.values()];
}

/** Leftovers that are still there after the grace (none: no wait at all). */
async function afterGrace(jobId: string, sid: number): Promise<ProcStat[]> {
  if ((await leftovers(jobId, sid)).length === 0) return [];
  await sleep(LEFTOVER_GRACE_MS);
  return leftovers(jobId, sid);
}

/** Ends what the ended agent left running; returns how many processes were ended and any that survived. */
export async function endLeftovers(opts: { jobId: string; sid: number; graceMs: number }): Promise<{ ended: number; survivors: NamedProcess[] }> {
  const found = await afterGrace(opts.jobId, opts.sid);
  if (found.length === 0) return { ended: 0, survivors: [] };
  const { survivors } = await stopAgentProcesses({ sid: opts.sid, jobId: opts.jobId, graceMs: opts.graceMs });
  return { ended: found.length - survivors.length, survivors };
}

/** Processes of the agent as the record lists them: each with its identity (a reused pid is never one of them). */
export function asLeftovers(found: readonly ProcStat[]): Leftover[] {
  const boot = bootId();
  return [...found]
    .sort((a, b) => a.pid - b.pid)
    .slice(0, MAX_LISTED)
    .map((p) => ({ pid: p.pid, command: (commandLineOf(p.pid) || p.comm).slice(0, 500), startTime: p.startTime, bootId: boot }));
}

/** What the ended agent left running, for the record (endLeftoversOnExit off): each with its identity. */
export async function listLeftovers(opts: { jobId: string; sid: number }): Promise<Leftover[]> {
  return asLeftovers(await afterGrace(opts.jobId, opts.sid));
}

/**
 * The detail said the moment the agent's main process has ended, while what it left running is
 * dealt with (a second's grace, then TERM and KILL): the agent is not said to run a moment longer.
 */
export function settlingDetail(count: number, settings: { endLeftoversOnExit?: boolean }): string {
  return settings.endLeftoversOnExit !== false ? `; ending ${processCount(count)} it left running` : `; left ${processCount(count)} running`;
}

/**
 * What the ended agent left running, dealt with as its settings say: ended (the default) or listed
 * on the record. Returns the words added to the end's detail, and the listed leftovers.
 */
export async function settleLeftovers(opts: {
  jobId: string;
  sid: number;
  settings: { endLeftoversOnExit?: boolean; stopGraceMs: number };
}): Promise<{ detail: string; leftovers: Leftover[] | undefined }> {
  const { jobId, sid, settings } = opts;
  if (settings.endLeftoversOnExit !== false) {
    const left = await endLeftovers({ jobId, sid, graceMs: Math.min(settings.stopGraceMs, 5000) });
    let detail = '';
    if (left.ended > 0) detail += `; ended ${processCount(left.ended)} it left running`;
    if (left.survivors.length > 0) detail += `; still running: ${describeSurvivors(left.survivors)}`;
    return { detail, leftovers: undefined };
  }
  // Left to the person: listed on the record (and the row) until Stop ends them or they exit.
  const leftovers = await listLeftovers({ jobId, sid });
  return { detail: leftovers.length > 0 ? `; left ${processCount(leftovers.length)} running` : '', leftovers };
}
