/**
 * With no VS Code window open nothing launches a queued agent or retries a
 * cleanup. When a command leaves such work and no coordinator holds the leader
 * lease, it starts `paddock coordinate --until-idle` in the background: detached,
 * output to a log file in the store, exiting once nothing is left to do.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, statSync, truncateSync } from 'node:fs';
import * as path from 'node:path';
import { cliBundlePath } from '../../core/common/bundles';
import { describeError } from '../../core/common/errors';
import { actingLeader, leaderLock } from '../../core/scheduler/leadership';
import { hasPendingWork, pendingWork } from '../../core/scheduler/pendingWork';
import { checksDue } from '../../core/scheduler/checksDue';
import type { JobStore } from '../../core/store';
import type { JobRecord } from '../../core/store/schema';
import type { CliContext } from '../command';
import { makeDirsSync } from '../../core/common/makeDirs';
import { withoutAgentVariables } from '../../core/worker/agentEnv';

/** The log is started afresh past this size (it is for looking into a problem, not an archive). */
const MAX_LOG_BYTES = 1024 * 1024;

export type CoordinatorPresence =
  /** A window or `paddock coordinate` leads and will do it. */
  | { kind: 'running' }
  /** This command started one in the background. */
  | { kind: 'started'; pid: number; log: string }
  /** Nothing left to do, so none was started. */
  | { kind: 'not-needed' }
  /** None runs and none could be started: the sentence says why. */
  | { kind: 'unavailable'; reason: string };

export function backgroundLogPath(home: string): string {
  return path.join(home, 'coordinator', 'background.log');
}

/**
 * Makes sure a coordinator will act on the work left in `store`: one leads already, or one is started now.
 * `listed`: the store's records when the caller has just read them all. `skip`: attempts whose check
 * an exiting coordinator found nothing to run for (it could not start it): a successor started for
 * them fails the same way and starts the next as it exits, one coordinator after another, forever.
 */
export async function ensureCoordinator(ctx: CliContext, store: JobStore, listed?: readonly JobRecord[], skip?: (job: JobRecord) => boolean): Promise<CoordinatorPresence> {
  // A suspended leader (a Ctrl-Z'd `paddock coordinate`) launches nothing: the one started here takes its lease over.
  if (await actingLeader(leaderLock(store.home))) return { kind: 'running' };
  const jobs = listed ?? (await store.list()).flatMap((e) => (e.ok ? [e.job] : []));
  // An attempt's check still to run counts too, but only where a check command is in force.
  if (!hasPendingWork(pendingWork(jobs)) && (await checksDue(jobs, { home: store.home, skip })).length === 0) return { kind: 'not-needed' };
  const script = cliBundlePath(ctx.env);
  if (!existsSync(script)) return { kind: 'unavailable', reason: `the Paddock CLI is missing at ${script}` };
  const log = backgroundLogPath(store.home);
  let fd: number | undefined;
  try {
    makeDirsSync(path.dirname(log), 0o700);
    if (existsSync(log) && statSync(log).size > MAX_LOG_BYTES) truncateSync(log, 0);
    fd = openSync(log, 'a', 0o600);
    const child = spawn(process.execPath, [script, 'coordinate', '--until-idle'], {
      detached: true,
      stdio: ['ignore', fd, fd],
      // The store's, not the agent's whose `paddock start` (or `list`) this may be: without its marker (bug 162).
      env: { ...withoutAgentVariables(ctx.env), PADDOCK_HOME: store.home },
      cwd: store.home,
    });
    const pid = child.pid;
    child.on('error', () => undefined); // a failed spawn is reported below through the missing pid
    child.unref();
    if (pid === undefined) return { kind: 'unavailable', reason: 'the background coordinator could not be started' };
    // Once it leads: a command run right after this one (a `paddock list`) then finds a coordinator,
    // where it would start a second one while this one's Node process still boots.
    await leadingOrEnded(store.home, child);
    return { kind: 'started', pid, log };
  } catch (err) {
    return { kind: 'unavailable', reason: `the background coordinator could not be started: ${describeError(err, 200)}` };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** How long a command waits for the coordinator it started to take the lease (it boots in ~0.1–0.3 s). */
const LEASE_WAIT_MS = 10_000;

/** Resolves when a coordinator holds the store's leader lease, `child` ended, or LEASE_WAIT_MS passed. */
async function leadingOrEnded(home: string, child: ChildProcess): Promise<void> {
  let ended = child.exitCode !== null || child.signalCode !== null;
  child.once('exit', () => (ended = true));
  const lease = leaderLock(home);
  const deadline = Date.now() + LEASE_WAIT_MS;
  while (!ended && Date.now() < deadline && !(await actingLeader(lease))) await new Promise((resolve) => setTimeout(resolve, 25));
}

/** Who will do `action` ("start it when a slot frees up"), as a clause. */
export function whoWill(presence: CoordinatorPresence, action: string): string {
  switch (presence.kind) {
    case 'running':
      return `the running coordinator (a VS Code window or paddock coordinate) will ${action}`;
    case 'started':
      return `a background coordinator will ${action} (pid ${presence.pid}, log ${presence.log}; it exits when nothing is left to do)`;
    case 'not-needed':
      return `the next coordinator to run (a VS Code window or paddock coordinate) will ${action}`;
    case 'unavailable':
      return `no coordinator runs and ${presence.reason}: run paddock coordinate, or open a VS Code window, to ${action}`;
  }
}
