/** Stop, under the job's operation lock held by the caller: proven stopped, or why not. */
import { findByEnvMarkerAsync } from '../proc';
import type { JobStore } from '../store';
import { currentFate } from '../store/leftoverWords';
import { isTerminalState } from '../store/schema';
import { AGENT_MARKER_ENV } from '../worker/agentMarker';
import { stopJob } from '../worker/stopJob';
import type { StopReport } from './types';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * `lockless`: run without the operation lock on a store nothing can be written in (bug 141): this stop's own
 * notes in the record are best effort, and it acts on `generation` only.
 */
export async function stopLocked(store: JobStore, id: string, opts: { force: boolean; graceMs?: number; generation?: number; lockless?: boolean }): Promise<StopReport> {
  // Under the job's operation lock: no retry can start another generation until this returns,
  // so the report describes the generation this stop acted on.
  const job = await store.read(id);
  const generation = job.lifecycle.generation;
  // A caller acting on one generation (the lead pass ending an abandoned one's leftovers) never stops another.
  if (opts.generation !== undefined && opts.generation !== generation) {
    return { id, generation, stopped: false, ended: [], state: job.lifecycle.state, action: 'none', reason: `agent ${id} is now generation ${generation}` };
  }
  const wasEnded = isTerminalState(job.lifecycle.state);
  // The read dropped recorded leftovers that are gone; the marker finds the ones never recorded (endLeftoversOnExit on, an orphan).
  const hasLeftovers = wasEnded && ((job.leftovers?.length ?? 0) > 0 || (await findByEnvMarkerAsync(AGENT_MARKER_ENV, id)).length > 0);
  const report = (patch: Partial<StopReport> & Pick<StopReport, 'state' | 'action'>): StopReport => ({
    id,
    generation,
    stopped: true,
    ended: [],
    reason: null,
    ...patch,
  });
  if (wasEnded && !hasLeftovers) return report({ state: job.lifecycle.state, action: 'none' });
  // Ended agents with leftovers (orphaned, completed) go the same way: stopJob ends what is left.
  const stopOpts = { force: opts.force, graceMs: opts.graceMs ?? job.settings.stopGraceMs, generation: opts.lockless ? generation : undefined, bestEffortNotes: opts.lockless };
  let result = await stopJob(store, id, stopOpts);
  // The agent ended by itself as the stop came, and its worker recorded that end with what it left
  // running listed (endLeftoversOnExit off): those are ended now, as Stop ends an ended agent's.
  if (!wasEnded && result.via === 'worker' && isTerminalState(result.state) && ((await store.read(id)).leftovers?.length ?? 0) > 0) {
    const rest = await stopJob(store, id, stopOpts);
    result = { ...rest, state: result.state, ended: [...(result.ended ?? []), ...(rest.ended ?? [])] };
  }
  // Running when this stop began and ended now with nothing left for it to end (its worker ended it and could
  // not record that, on a full disk, or it ended by itself meanwhile): stopped, not "already" ended.
  const action: StopReport['action'] = result.via === 'store' ? 'cancelled-queued' : wasEnded ? 'ended-leftovers' : 'stopped';
  const ended = result.ended ?? [];
  // A worker still ending them writes its own words: the report waits for them (a reader marks a dead one gone).
  if (isTerminalState(result.state)) await workerDone(store, id, generation, job.settings.stopGraceMs + 10_000);
  // However the stop came to end them (the worker gone, or the agent ending by itself as it came).
  if (isTerminalState(result.state) && (ended.length > 0 || job.leftoversEnder?.gone)) {
    await noteLeftoversStopped(store, id, generation, ended.length).catch((err: unknown) => {
      if (!opts.lockless) throw err;
    });
  }
  if (result.survivors.length > 0) {
    const names = result.survivors.slice(0, 5).map((p) => `pid ${p.pid} (${p.command.split(' ')[0]})`).join(', ');
    return report({ state: result.state, action, ended, stopped: false, reason: `still running after SIGKILL: ${names}` });
  }
  if (!isTerminalState(result.state)) {
    return report({ state: result.state, action, ended, stopped: false, reason: `the agent is still ${result.state}` });
  }
  const left = await findByEnvMarkerAsync(AGENT_MARKER_ENV, id);
  // A fresh read judges the listed leftovers again: the ones this stop ended leave the record.
  const after = await store.read(id);
  const listed = after.leftovers ?? [];
  if (left.length > 0 || listed.length > 0) {
    const names = [...left.map((p) => ({ pid: p.pid, command: p.comm })), ...listed.filter((p) => !left.some((l) => l.pid === p.pid))]
      .slice(0, 5)
      .map((p) => `pid ${p.pid} (${p.command.split(' ')[0]})`)
      .join(', ');
    return report({ state: result.state, action, ended, stopped: false, reason: `still running: ${names}` });
  }
  return report({ state: result.state, action, ended });
}

/**
 * Stop ended what an ended agent left running: its words (leftoverWords.ts) no longer say they are
 * being ended or left running (a worker killed mid-ending, or endLeftoversOnExit off) but that Stop
 * ended them, and a worker named as ending them but found gone is done with. A worker still ending
 * them writes its own words. A record without `leftoversFate` (an orphan's listing) keeps its
 * detail as it is; one written before the field has it lifted from its detail on read (migrations.ts).
 */
async function noteLeftoversStopped(store: JobStore, id: string, generation: number, ended: number): Promise<void> {
  await store.update(id, (job) => {
    if (job.lifecycle.generation !== generation) return;
    if (job.leftoversEnder?.gone) job.leftoversEnder = null;
    // Its worker's own account (outcome 'ended': what it ended, what outlived it) is kept, as is an earlier Stop's;
    // a fate of another generation (an older Paddock's retry kept it) is none of this one's.
    const fate = currentFate(job);
    if (ended === 0 || job.leftoversEnder || !fate || fate.outcome) return;
    // A reader may have said them exited (they did, once this stop ended them) before this note: this stop's words win.
    job.leftoversFate = { count: ended, outcome: 'stopped', generation };
  });
}

/** Until the worker named as ending the leftovers is done with them (or found gone), at most `ms`. */
async function workerDone(store: JobStore, id: string, generation: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const job = await store.read(id);
    if (job.lifecycle.generation !== generation || !job.leftoversEnder || job.leftoversEnder.gone || Date.now() >= deadline) return;
    await sleep(100);
  }
}
