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
import { bootId, shownCommandOf, ownIdentity, treeMembers, type ProcStat } from '../proc';
import type { ListedLeftovers } from './executionRecord';
import { LeftScope } from './leftScope';
import type { JobRecord, Leftover, LeftoversFate } from '../store';
import { currentFate } from '../store/leftoverWords';
import { AGENT_MARKER_ENV } from './agentMarker';
import { describeSurvivors } from './stopAgent';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeError } from '../common/errors';
import { lookAgain } from '../proc/lookAgain';

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

/** How long an exit scan whose look fails is tried again, and how often: a `ps` failing under load is usually brief. */
const EXIT_SCAN_TRIES_MS = 10_000;
const EXIT_SCAN_PAUSE_MS = 500;

/**
 * `leftovers`, tried again while its look fails (the backend already tried its `ps` a few times): a
 * failed look is not "nothing left", which would record the agent ended with its `setsid` daemon
 * running on and never ended (bug 189). Undefined when it kept failing, `failed` told so in words.
 */
export async function exitScan(jobId: string, sid: number, failed: (why: string) => void): Promise<ProcStat[] | undefined> {
  try {
    return await lookAgain(() => leftovers(jobId, sid), EXIT_SCAN_TRIES_MS, EXIT_SCAN_PAUSE_MS);
  } catch (err) {
    failed(`could not look for processes the agent left running: ${describeError(err, 300)}`);
    return undefined;
  }
}

/** How often the grace looks at the agent's sessions: a process forked in them is proven while one known is still there. */
const GRACE_LOOK_MS = 50;

/** Leftovers that are still there after the grace (none: no wait at all). */
async function afterGrace(scope: LeftScope): Promise<ProcStat[]> {
  if ((await scope.stillThere()).length === 0) return [];
  // Looked at throughout, not once at its end: a leader that forks and exits inside the grace
  // leaves its fork proven (leftScope.ts), not a stranger alone in a session.
  const deadline = Date.now() + LEFTOVER_GRACE_MS;
  while (Date.now() < deadline) {
    await sleep(Math.min(GRACE_LOOK_MS, Math.max(0, deadline - Date.now())));
    await scope.stillThere();
  }
  return scope.stillThere();
}

/**
 * Ends what the ended agent left running; returns how many processes were ended and any that
 * survived, each with its identity: the record lists them (its words say "still running" only
 * while it does), found in the exit scan or forked after it.
 */
export async function endLeftovers(opts: { scope: LeftScope; graceMs: number }): Promise<{ ended: number; survivors: Leftover[] }> {
  // Looked for only where the exit scan proves them the agent's (leftScope.ts): never another job's new session.
  const { scope } = opts;
  const left = await afterGrace(scope);
  if (left.length === 0) return { ended: 0, survivors: [] };
  const survivors = await scope.end(opts.graceMs);
  const ended = left.filter((p) => !survivors.some((s) => s.pid === p.pid)).length;
  return { ended, survivors: asLeftovers(survivors) };
}

/** Processes of the agent as the record lists them: each with its identity (a reused pid is never one of them). */
export function asLeftovers(found: readonly ProcStat[]): Leftover[] {
  const boot = bootId();
  return [...found]
    .sort((a, b) => a.pid - b.pid)
    .slice(0, MAX_LISTED)
    // Whole: the store redacts it, then cuts it to the schema's limit (a secret cut first would not be found).
    .map((p) => ({ pid: p.pid, command: shownCommandOf(p), startTime: p.startTime, bootId: boot }));
}

/**
 * What the exit scan found, as listed with the agent's end; with the worker that ends them named
 * (endLeftoversOnExit on): a retry waits only while that worker lives (operations/rules.ts). The
 * detail's words follow from these (store/leftoverWords.ts): *ending N …* or *left N … running*.
 */
export function listedAtExit(found: readonly ProcStat[], settings: { endLeftoversOnExit?: boolean }): ListedLeftovers {
  const ender = settings.endLeftoversOnExit !== false ? ownIdentity() : undefined;
  return { leftovers: asLeftovers(found), leftoversFate: { count: found.length }, ...(ender ? { leftoversEnder: ender } : {}) };
}

/** What the ended agent left running, for the record (endLeftoversOnExit off): each with its identity. */
export async function listLeftovers(scope: LeftScope): Promise<Leftover[]> {
  return asLeftovers(await afterGrace(scope));
}

/**
 * What the ended agent left running, dealt with as its settings say: ended (the default) or listed
 * on the record. Returns what became of them (null: nothing to say, they all exited in the grace)
 * and the listing (ended: what outlived the SIGKILL; undefined: the exit's, pruned of what exited).
 */
export async function settleLeftovers(opts: {
  /** What the scan at the agent's exit found (`leftovers`), and where more of it may be. */
  scope: LeftScope;
  settings: { endLeftoversOnExit?: boolean; stopGraceMs: number };
}): Promise<{ fate: LeftoversFate | null; leftovers: Leftover[] | undefined }> {
  const { scope, settings } = opts;
  if (settings.endLeftoversOnExit !== false) {
    const left = await endLeftovers({ scope, graceMs: Math.min(settings.stopGraceMs, 5000) });
    // Whole: the store redacts them, then cuts them (messageRedaction.ts).
    const survivors = left.survivors.length > 0 ? { survivors: describeSurvivors(left.survivors) } : {};
    const fate = left.ended > 0 || left.survivors.length > 0 ? { count: left.ended, outcome: 'ended' as const, ...survivors } : null;
    return { fate, leftovers: left.survivors.length > 0 ? left.survivors : undefined };
  }
  // Left to the person: listed on the record (and the row) until Stop ends them or they exit.
  const leftovers = await listLeftovers(scope);
  return { fate: leftovers.length > 0 ? { count: leftovers.length } : null, leftovers };
}

/**
 * The fate the settling records, of the generation it settles. A Stop inside the grace
 * (endLeftoversOnExit off) ends them, so the grace finds none left: Stop's words stay if its note
 * came first, and if it comes after, it finds a fate of this generation to replace (none left:
 * count 0, which says nothing) rather than none, which it leaves alone (leftoverWords.ts, stop.ts).
 */
export function settledFate(job: JobRecord, fate: LeftoversFate | null): LeftoversFate {
  const now = currentFate(job);
  if (now?.outcome === 'stopped') return now;
  return { ...(fate ?? { count: 0 }), generation: job.lifecycle.generation };
}
