/**
 * The jobs a leader's pass left alone because a live process held their operation lock: a queued
 * job whose start is assigning its worktree, a `starting` one being launched, one a person's
 * operation is on. The holder's death writes nothing to the store, so no store change would bring a
 * pass back to them (a start killed before it assigned the worktree left its agent queued, and a
 * background coordinator waiting on it never exited). Their locks are looked at each second while
 * any is held, and `onFree` asks for a pass once one is free; nothing runs while none is held.
 * A holder suspended (SIGSTOP) writes nothing either and never lets go until continued: one seen
 * stopped for LEASE_SUSPENDED_MS asks for a pass too, which may act on what it left half done
 * without its lock (`suspendedHolder`: a launch that holds a capacity slot, bug 132).
 */
import { Disposable, disposableTimeout, IDisposable, MutableDisposable } from '../common/lifecycle';
import type { HeldLock, LockOwner } from '../coordinator/ownedLock';
import { isSuspendedIn } from '../coordinator/suspendedHolder';
import { processTableSource, type StatSource } from '../proc/identity';
import { jobLock } from '../operations/context';
import type { JobStore } from '../store';
import { LEASE_SUSPENDED_MS } from './leadership';

const RECHECK_MS = 1_000;

export class HeldLocks extends Disposable {
  private readonly ids = new Set<string>();
  private readonly recheck = this._register(new MutableDisposable<IDisposable>());
  /** Holders seen stopped, by job: that take of the lock (its owner) and since when; `told` once a pass was asked for. */
  private readonly stopped = new Map<string, { owner: LockOwner; since: number; told: boolean }>();

  constructor(
    private readonly store: JobStore,
    private readonly opts: {
      /** Whether passes are still this process's to run (the leader). */
      active(): boolean;
      /** One of the locks is free, or its holder has stayed suspended: a pass should look at its job again. */
      onFree(): void;
      track<T>(promise: Promise<T>): Promise<T>;
    },
  ) {
    super();
  }

  /** Takes job `id`'s operation lock if it is free; when a live process holds it, watches it and gives undefined. */
  async takeOrWatch(id: string): Promise<HeldLock | undefined> {
    const lock = await jobLock(this.store, id).tryAcquire();
    if (!lock) {
      this.ids.add(id);
      this.arm();
    } else {
      this.stopped.delete(id);
    }
    return lock;
  }

  /** Whether job `id`'s lock was found held and has not been seen free since. */
  isWatching(id: string): boolean {
    return this.ids.has(id);
  }

  /**
   * The holder of job `id`'s lock when it has been seen stopped, the same take of the lock, for
   * LEASE_SUSPENDED_MS or more and still is (judged again now); undefined otherwise.
   */
  async suspendedHolder(id: string): Promise<LockOwner | undefined> {
    const seen = this.stopped.get(id);
    if (!seen || Date.now() - seen.since < LEASE_SUSPENDED_MS) return undefined;
    const stats = await processTableSource();
    const { owner } = await jobLock(this.store, id).look(stats);
    return owner?.token === seen.owner.token && isSuspendedIn(owner, stats(owner.pid)) ? owner : undefined;
  }

  private arm(): void {
    if (this.recheck.value || this._store.isDisposed) return;
    this.recheck.value = disposableTimeout(() => void this.opts.track(this.look()), RECHECK_MS);
  }

  /**
   * A look that failed (a `ps` that failed, a /proc read out of descriptors: bugs 189, 209) says
   * nothing: all held, none stopped, and looked at again. Thrown out of here, the next look was never
   * armed and a freed lock's queued agent never had a pass.
   */
  private async look(): Promise<void> {
    const { free, suspendedLong } = await this.lookOnce([...this.ids]).catch(() => ({ free: [] as boolean[], suspendedLong: [] as boolean[] }));
    this.recheck.clear();
    if (!this.opts.active()) {
      this.ids.clear();
      this.stopped.clear();
    } else if (free.includes(true)) {
      // The pass looks at them all again, and watches those still held.
      this.ids.clear();
      this.opts.onFree();
    } else {
      if (suspendedLong.includes(true)) this.opts.onFree();
      this.arm();
    }
  }

  private async lookOnce(ids: string[]): Promise<{ free: boolean[]; suspendedLong: boolean[] }> {
    // One process table for every lock, whether free and whether stopped (one `ps` a second on the portable backend).
    const stats = await Promise.resolve(processTableSource()).catch(() => undefined);
    const looks: { free: boolean; owner?: LockOwner }[] = await Promise.all(ids.map((id) => (stats ? jobLock(this.store, id).look(stats).catch(() => ({ free: false })) : { free: false })));
    const free = looks.map((l) => l.free);
    return { free, suspendedLong: stats ? ids.map((id, i) => !free[i] && this.noteStopped(id, looks[i]!.owner, stats)) : [] };
  }

  /** Notes whether `owner`, the live holder of `id`'s lock, is stopped; true the first time it has been for LEASE_SUSPENDED_MS. */
  private noteStopped(id: string, owner: LockOwner | undefined, stats: StatSource): boolean {
    if (!owner || !isSuspendedIn(owner, stats(owner.pid))) {
      this.stopped.delete(id);
      return false;
    }
    let seen = this.stopped.get(id);
    if (seen?.owner.token !== owner.token) this.stopped.set(id, (seen = { owner, since: Date.now(), told: false }));
    if (seen.told || Date.now() - seen.since < LEASE_SUSPENDED_MS) return false;
    seen.told = true;
    return true;
  }
}
