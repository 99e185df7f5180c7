/**
 * The leader lease: one process per store at a time runs the scheduler. The
 * lease is an owned lock (`coordinator/leader.lock`), free the moment its
 * owner is gone, so a follower only needs to try now and then.
 */
import * as path from 'node:path';
import { Emitter, Event } from '../common/event';
import { Disposable, toDisposable } from '../common/lifecycle';
import { HeldLock, OwnedLock } from '../coordinator/ownedLock';

/** The lease every coordinator of the store `home` competes for (windows, `paddock coordinate`). */
export function leaderLock(home: string): OwnedLock {
  return new OwnedLock(path.join(home, 'coordinator', 'leader.lock'), 'coordinator leadership');
}

export class Leadership extends Disposable {
  private readonly _onDidChange = this._register(new Emitter<boolean>());
  readonly onDidChange: Event<boolean> = this._onDidChange.event;

  private readonly lock: OwnedLock;
  private lease: HeldLock | undefined;
  private releasing: Promise<void> | undefined;

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
    const lease = await this.lock.tryAcquire();
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
}
