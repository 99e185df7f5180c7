/**
 * The jobs a leader's pass left alone because a live process held their operation lock: a queued
 * job whose start is assigning its worktree, a `starting` one being launched, one a person's
 * operation is on. The holder's death writes nothing to the store, so no store change would bring a
 * pass back to them (a start killed before it assigned the worktree left its agent queued, and a
 * background coordinator waiting on it never exited). Their locks are looked at each second while
 * any is held, and `onFree` asks for a pass once one is free; nothing runs while none is held.
 */
import { Disposable, disposableTimeout, IDisposable, MutableDisposable } from '../common/lifecycle';
import type { HeldLock } from '../coordinator/ownedLock';
import { jobLock } from '../operations/context';
import type { JobStore } from '../store';

const RECHECK_MS = 1_000;

export class HeldLocks extends Disposable {
  private readonly ids = new Set<string>();
  private readonly recheck = this._register(new MutableDisposable<IDisposable>());

  constructor(
    private readonly store: JobStore,
    private readonly opts: {
      /** Whether passes are still this process's to run (the leader). */
      active(): boolean;
      /** One of the locks is free: a pass should look at its job again. */
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
    }
    return lock;
  }

  /** Whether job `id`'s lock was found held and has not been seen free since. */
  isWatching(id: string): boolean {
    return this.ids.has(id);
  }

  private arm(): void {
    if (this.recheck.value || this._store.isDisposed) return;
    this.recheck.value = disposableTimeout(() => void this.opts.track(this.look()), RECHECK_MS);
  }

  private async look(): Promise<void> {
    const free = await Promise.all([...this.ids].map((id) => jobLock(this.store, id).isFree().catch(() => false)));
    this.recheck.clear();
    if (!this.opts.active()) {
      this.ids.clear();
    } else if (free.includes(true)) {
      // The pass looks at them all again, and watches those still held.
      this.ids.clear();
      this.opts.onFree();
    } else {
      this.arm();
    }
  }
}
