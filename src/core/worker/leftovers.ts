/**
 * When an agent's main process ends, what it started may run on: Codex's own
 * `app-server` daemon (in a new session, ~160 MB) outlives it, and nothing of
 * an ended agent should. After a short grace for them to exit by themselves,
 * the worker ends every process still carrying the job's marker or in the
 * agent's session (TERM, then KILL after the stop grace). The setting
 * `paddock.endLeftoversOnExit` turns it off; Stop still ends them then.
 */
import { findByEnvMarker, isGoneState, sessionMembers } from '../proc';
import { AGENT_MARKER_ENV } from './agentMarker';
import { stopAgentProcesses, type NamedProcess } from './stopAgent';

/** How long leftovers get to exit on their own once the agent has ended. */
export const LEFTOVER_GRACE_MS = 1000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Live processes of the agent other than its ended main process (a zombie until reaped) and this worker. */
function leftovers(jobId: string, sid: number): number[] {
  const live = [...findByEnvMarker(AGENT_MARKER_ENV, jobId), ...sessionMembers(sid)].filter((p) => !isGoneState(p.state));
  const pids = new Set(live.map((p) => p.pid));
  pids.delete(process.pid);
  pids.delete(sid);
  return [...pids];
}

/** Ends what the ended agent left running; returns how many processes were ended and any that survived. */
export async function endLeftovers(opts: { jobId: string; sid: number; graceMs: number }): Promise<{ ended: number; survivors: NamedProcess[] }> {
  if (leftovers(opts.jobId, opts.sid).length === 0) return { ended: 0, survivors: [] };
  await sleep(LEFTOVER_GRACE_MS);
  const found = leftovers(opts.jobId, opts.sid);
  if (found.length === 0) return { ended: 0, survivors: [] };
  const { survivors } = await stopAgentProcesses({ sid: opts.sid, jobId: opts.jobId, graceMs: opts.graceMs });
  return { ended: found.length - survivors.length, survivors };
}
