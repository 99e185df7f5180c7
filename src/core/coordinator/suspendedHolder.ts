/**
 * A lock's holder that is suspended (SIGSTOP, a person's Ctrl-Z on a `paddock` command) is alive, so
 * its lock is rightly never taken from it, and it cannot let go until it is continued: a waiter sat
 * out its whole wait (two minutes for an agent's operation lock) and then said only that it timed
 * out. A waiter that sees the same holder stopped for a second says so at once, with the `kill -CONT`
 * that resumes it, as `list`, `stop` and `attach` say of a suspended worker.
 */
import { failure } from '../common/errors';
import { bootId, isThisProcess, readProcStatAsync } from '../proc/identity';
import { isStoppedState, type ProcStat } from '../proc/procStat';

/** Seen stopped this long, a holder is suspended, not caught by a tracer's or a debugger's brief stop. */
const SUSPENDED_FOR_MS = 1000;
/** How often a waiter looks (the first look after this too: a lock freed soon costs none). */
const LOOK_EVERY_MS = 400;

export interface HolderIdentity {
  pid: number;
  startTime: number;
  bootId: string;
  token: string;
  purpose: string;
}

export class SuspendedHolderWatch {
  private nextLookAt = Date.now() + LOOK_EVERY_MS;
  private stopped: { token: string; since: number } | undefined;

  /** Throws once the lock's holder has been seen suspended for a while; `holder` is asked at most every LOOK_EVERY_MS. */
  async check(lockName: string, holder: () => Promise<HolderIdentity | undefined>): Promise<void> {
    if (Date.now() < this.nextLookAt) return;
    this.nextLookAt = Date.now() + LOOK_EVERY_MS;
    const owner = await holder();
    if (!owner || !(await isSuspended(owner))) {
      this.stopped = undefined;
      return;
    }
    if (this.stopped?.token !== owner.token) this.stopped = { token: owner.token, since: Date.now() };
    if (Date.now() - this.stopped.since < SUSPENDED_FOR_MS) return;
    throw failure(
      `The lock ${lockName} is held by pid ${owner.pid} (${owner.purpose}), which is suspended (SIGSTOP) and cannot let it go until it is resumed: kill -CONT ${owner.pid} resumes it.`,
      'LOCK_HOLDER_SUSPENDED',
    );
  }
}

/** Stopped, and still the recorded process (same boot, same start time). */
export async function isSuspended(owner: Pick<HolderIdentity, 'pid' | 'startTime' | 'bootId'>): Promise<boolean> {
  if (owner.bootId !== bootId() || isThisProcess(owner)) return false;
  // A failed look says nothing of it: the wait goes on and looks again.
  return isSuspendedIn(owner, await readProcStatAsync(owner.pid).catch(() => undefined));
}

/** The same judgment from a process table read once for many (`processTableSource`): no process run per holder. */
export function isSuspendedIn(owner: Pick<HolderIdentity, 'pid' | 'startTime' | 'bootId'>, stat: ProcStat | undefined): boolean {
  if (owner.bootId !== bootId() || isThisProcess(owner)) return false;
  return stat !== undefined && stat.pid === owner.pid && stat.startTime === owner.startTime && isStoppedState(stat.state);
}
