/**
 * A worker's exclusive hold on one execution of a job: a long-held
 * proper-lockfile lock (`execution.lock`, separate from the short record lock)
 * plus the `execution` owner record. Every later write by the worker passes
 * `fence`; the store refuses it once the worker is no longer the owner.
 */
import { Emitter, Event } from '../common/event';
import { IDisposable } from '../common/lifecycle';

export interface Fence {
  ownerToken: string;
  generation: number;
}

export interface ExecutionClaim extends IDisposable {
  readonly fence: Fence;
  /** The execution lock was lost (taken over or removed): stop writing and wind down. */
  readonly onDidCompromise: Event<Error>;
  /** Releases the execution lock. The record is left as it is: end the execution with a terminal transition first. */
  release(): Promise<void>;
}

export class HeldExecution implements ExecutionClaim {
  private readonly compromiseEmitter = new Emitter<Error>();
  readonly onDidCompromise = this.compromiseEmitter.event;
  private releaseLock: (() => Promise<void>) | undefined;
  private released = false;

  constructor(readonly fence: Fence) {}

  /** Set once the lock is held (the compromise handler must exist before the lock does). */
  attach(releaseLock: () => Promise<void>): void {
    this.releaseLock = releaseLock;
  }

  compromised(err: Error): void {
    // The lock is gone already: releasing it would only fail.
    this.releaseLock = undefined;
    this.compromiseEmitter.fire(err);
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    const releaseLock = this.releaseLock;
    this.releaseLock = undefined;
    this.compromiseEmitter.dispose();
    await releaseLock?.().catch(() => undefined);
  }

  dispose(): void {
    void this.release();
  }
}
