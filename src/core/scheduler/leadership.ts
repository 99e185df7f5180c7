/**
 * The leader lease: one process per store at a time runs the scheduler. The
 * lease is an owned lock (`coordinator/leader.lock`), free the moment its
 * owner is gone, so a follower only needs to try now and then. A leader
 * suspended (SIGSTOP, a Ctrl-Z'd `paddock coordinate`) is alive but launches
 * nothing: once a follower has seen it stopped for LEASE_SUSPENDED_MS it takes
 * the lease over; the leader, continued, finds its lease gone before it acts
 * (`refresh` at every pass and launch round, and under the capacity lock).
 */
import * as path from 'node:path';
import { Emitter, Event } from '../common/event';
import { Disposable, toDisposable } from '../common/lifecycle';
import { HeldLock, LockOwner, OwnedLock } from '../coordinator/ownedLock';
import { isSuspended } from '../coordinator/suspendedHolder';

/** Seen stopped this long, a leader is suspended (not caught by a tracer for a moment): its lease is taken over. */
export const LEASE_SUSPENDED_MS = 3000;

/** The lease every coordinator of the store `home` competes for (windows, `paddock coordinate`). */
export function leaderLock(home: string): OwnedLock {
  return new OwnedLock(path.join(home, 'coordinator', 'leader.lock'), 'coordinator leadership');
}

/** The lease's holder if it can lead now: alive and not suspended (a suspended one's lease is taken over). */
export async function actingLeader(lease: OwnedLock): Promise<LockOwner | undefined> {
  const owner = await lease.owner();
  return owner && !(await isSuspended(owner)) ? owner : undefined;
}

export class Leadership extends Disposable {
  private readonly _onDidChange = this._register(new Emitter<boolean>());
  readonly onDidChange: Event<boolean> = this._onDidChange.event;

  private readonly lock: OwnedLock;
  private lease: HeldLock | undefined;
  private releasing: Promise<void> | undefined;
  /** The lease's holder as first seen suspended (that take of it, by its token). */
  private suspended: { token: string; since: number } | undefined;

  constructor(home: string, private readonly log: (message: string) => void) {
    super();
    this.lock = leaderLock(home);
    this._register(
      toDisposable(() => {
        const lease = this.lease;
        this.lease = undefined;
        if (lease) this.releasing = lease.release();
      }),
    );
  }

  get isLeader(): boolean {
    return this.lease !== undefined;
  }

  /**
   * Gives the lease up now: a one-shot coordinator (the CLI's) at the end of each pump and pass. Held on
   * until its process exits, it would make a concurrent `paddock start` leave its agent to a leader that
   * never looks again (bug 170, `oneShot.ts`).
   */
  async release(): Promise<void> {
    const lease = this.lease;
    if (!lease) return;
    this.lease = undefined;
    this._onDidChange.fire(false);
    await lease.release();
  }

  /** Resolves when the lease given up at dispose is released. */
  whenReleased(): Promise<void> {
    return this.releasing ?? Promise.resolve();
  }

  /** Checks that a held lease is still ours, or tries to take a free one. */
  async refresh(): Promise<boolean> {
    if (this.lease) {
      if (await this.lock.holds(this.lease)) return true;
      this.lease = undefined;
      this.log('lost the coordinator lease');
      this._onDidChange.fire(false);
    }
    if (this._store.isDisposed) return false;
    const lease = (await this.lock.tryAcquire()) ?? (await this.takeFromSuspended());
    if (!lease) return false;
    if (this._store.isDisposed) {
      await lease.release();
      return false;
    }
    this.lease = lease;
    this.log('this coordinator now leads: it launches queued agents and retries cleanups');
    this._onDidChange.fire(true);
    return true;
  }

  /** The lease of a holder seen suspended (the same take) since LEASE_SUSPENDED_MS ago; undefined otherwise. */
  private async takeFromSuspended(): Promise<HeldLock | undefined> {
    const owner = await this.lock.owner();
    if (!owner || !(await isSuspended(owner))) {
      this.suspended = undefined;
      return undefined;
    }
    if (this.suspended?.token !== owner.token) this.suspended = { token: owner.token, since: Date.now() };
    const stoppedFor = Date.now() - this.suspended.since;
    if (stoppedFor < LEASE_SUSPENDED_MS) return undefined;
    const lease = await this.lock.takeFromSuspended(owner);
    if (lease) this.log(`took the coordinator lease over from pid ${owner.pid}, suspended (SIGSTOP) for ${Math.round(stoppedFor / 1000)} s or more`);
    return lease;
  }
}
