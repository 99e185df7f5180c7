/**
 * When an agent's main process ends, what it started may run on: Codex's own
 * `app-server` daemon (in a new session, ~160 MB) outlives it, and nothing of
 * an ended agent should. Found at its exit (by the job's marker and the
 * agent's session), they get a short grace to exit by themselves; then the
 * worker ends what is left of them and their sessions (TERM, then KILL after
 * the stop grace). The setting
 * `paddock.endLeftoversOnExit` turns it off: then they are listed on the record
 * (with their start times, so a reused pid is never shown as one of them) and
 * Stop ends them.
 */
import { bootId, commandLineOf, markedSessions, signalEachIfSame, stillRunning, terminateProcessTree, treeMembers, type ProcStat } from '../proc';
import type { Leftover } from '../store';
import { AGENT_MARKER_ENV } from './agentMarker';
import { processCount } from '../operations/leftovers';
import { describeSurvivors, type NamedProcess } from './stopAgent';
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

/**
 * Where what the agent left is looked for after its end was recorded: its PTY session, the sessions
 * of the escapees found at its exit, and those processes by identity — never the marker again. From
 * the recorded end on, a retry may start a new execution whose processes carry the same marker; a
 * new session is never one of these, and a pid is never taken for another process.
 */
interface LeftScope {
  sessions: number[];
  found: ProcStat[];
}

function scopeOf(found: ProcStat[], sid: number): LeftScope {
  return { sessions: markedSessions(found, sid), found };
}

/** What of the scope still runs: its sessions' members and the processes found at the exit (not this worker, not the ended leader). */
async function stillThere(scope: LeftScope, sid: number): Promise<ProcStat[]> {
  const byPid = new Map<number, ProcStat>();
  for (const s of scope.sessions) for (const p of await treeMembers(s)) byPid.set(p.pid, p);
  for (const p of await stillRunning(scope.found)) byPid.set(p.pid, p);
  byPid.delete(process.pid);
  byPid.delete(sid);
  return [...byPid.values()];
}

/** Leftovers that are still there after the grace (none: no wait at all). */
async function afterGrace(scope: LeftScope, sid: number): Promise<ProcStat[]> {
  if ((await stillThere(scope, sid)).length === 0) return [];
  await sleep(LEFTOVER_GRACE_MS);
  return stillThere(scope, sid);
}

/** TERM, up to `graceMs`, KILL: each only while its pid still names the process found. */
async function endByIdentity(processes: ProcStat[], graceMs: number): Promise<ProcStat[]> {
  await signalEachIfSame(processes, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while ((await stillRunning(processes)).length > 0 && Date.now() < deadline) await sleep(50);
  await signalEachIfSame(await stillRunning(processes), 'SIGKILL');
  const killDeadline = Date.now() + 2000;
  while ((await stillRunning(processes)).length > 0 && Date.now() < killDeadline) await sleep(20);
  return stillRunning(processes);
}

/** Ends what the ended agent left running; returns how many processes were ended and any that survived. */
export async function endLeftovers(opts: { found: ProcStat[]; sid: number; graceMs: number }): Promise<{ ended: number; survivors: NamedProcess[] }> {
  const scope = scopeOf(opts.found, opts.sid);
  const left = await afterGrace(scope, opts.sid);
  if (left.length === 0) return { ended: 0, survivors: [] };
  const inSessions = (p: ProcStat) => scope.sessions.includes(p.sid);
  const [bySession, byIdentity] = await Promise.all([
    Promise.all(scope.sessions.map((sid) => terminateProcessTree({ sid, graceMs: opts.graceMs }).then((r) => r.survivors))),
    endByIdentity(left.filter((p) => !inSessions(p)), opts.graceMs),
  ]);
  const survivors = [...bySession.flat(), ...byIdentity].filter((p) => p.pid !== opts.sid);
  return { ended: left.length - survivors.length, survivors: survivors.map((p) => ({ pid: p.pid, command: (commandLineOf(p.pid) || p.comm).slice(0, 500) })) };
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
export async function listLeftovers(opts: { found: ProcStat[]; sid: number }): Promise<Leftover[]> {
  return asLeftovers(await afterGrace(scopeOf(opts.found, opts.sid), opts.sid));
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
  /** What the scan at the agent's exit found (`leftovers`). */
  found: ProcStat[];
  sid: number;
  settings: { endLeftoversOnExit?: boolean; stopGraceMs: number };
}): Promise<{ detail: string; leftovers: Leftover[] | undefined }> {
  const { found, sid, settings } = opts;
  if (settings.endLeftoversOnExit !== false) {
    const left = await endLeftovers({ found, sid, graceMs: Math.min(settings.stopGraceMs, 5000) });
    let detail = '';
    if (left.ended > 0) detail += `; ended ${processCount(left.ended)} it left running`;
    if (left.survivors.length > 0) detail += `; still running: ${describeSurvivors(left.survivors)}`;
    return { detail, leftovers: undefined };
  }
  // Left to the person: listed on the record (and the row) until Stop ends them or they exit.
  const leftovers = await listLeftovers({ found, sid });
  return { detail: leftovers.length > 0 ? `; left ${processCount(leftovers.length)} running` : '', leftovers };
}
