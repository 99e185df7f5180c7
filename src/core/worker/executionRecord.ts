/**
 * The worker's writes to its job record: one queue, so changes land in the
 * order they happen; every write fenced by the execution claim; running⇄waiting
 * flips and activity times throttled so a chatty agent does not hammer the store.
 * Nothing here polls: a timer is armed only when there is something to write,
 * so an idle agent's worker is never woken by its record.
 */
import { Disposable, toDisposable } from '../common/lifecycle';
import { describeError } from '../common/errors';
import { isTerminalState, type Fence, type JobRecord, type JobStore, type Leftover, type LeftoversEnder, type LeftoversFate, type Lifecycle, type LifecycleState } from '../store';
import type { WaitingReason } from './waiting';

/** What the ended agent left running, listed with its end, and the worker ending them (if it does). */
export interface ListedLeftovers {
  leftovers: Leftover[];
  leftoversEnder?: LeftoversEnder;
  /** How many, for the detail's words (store/leftoverWords.ts). */
  leftoversFate: LeftoversFate;
}

/** Waiting/running flips are written at most this often (the latest state wins). */
const STATE_WRITE_INTERVAL_MS = 1000;
/** Activity times are written at most this often, and only after new activity. */
export const ACTIVITY_WRITE_INTERVAL_MS = 30_000;

export class ExecutionRecord extends Disposable {
  private writes: Promise<unknown> = Promise.resolve();
  private current: LifecycleState;
  private desiredWaiting: WaitingReason | null = null;
  private waitingTimer: NodeJS.Timeout | undefined;
  private lastWaitingWriteAt = 0;
  private lastActivity = new Date();
  private activityWritten = true;
  /** Armed by the first activity after a write; none while the agent is quiet. */
  private activityTimer: NodeJS.Timeout | undefined;
  private lastActivityWriteAt = Date.now();
  /** A fact about this execution the person is to see beside its running/waiting detail (`setNote`). */
  private note: string | null = null;

  constructor(
    private readonly store: JobStore,
    private readonly id: string,
    private readonly fence: Fence,
    initial: LifecycleState,
    private readonly log: (message: string) => void,
    private readonly activityWriteMs = ACTIVITY_WRITE_INTERVAL_MS,
  ) {
    super();
    this.current = initial;
    this._register(
      toDisposable(() => {
        if (this.waitingTimer) clearTimeout(this.waitingTimer);
        if (this.activityTimer) clearTimeout(this.activityTimer);
      }),
    );
  }

  /** The state as last written by this worker. */
  get state(): LifecycleState {
    return this.current;
  }

  /** Queued and fenced; rejects when the write failed (the queue goes on). */
  transition(
    to: LifecycleState,
    patch: Partial<Lifecycle> & { detail?: string | null } = {},
    expectFrom?: LifecycleState[],
    listed?: ListedLeftovers,
  ): Promise<void> {
    return this.enqueue(async () => {
      const activity = this.lastActivity;
      await this.store.transition(this.id, to, { lastActivityAt: activity.toISOString(), ...patch }, { fence: this.fence, expectFrom, ...listed });
      this.current = to;
      this.markActivityWritten(activity);
    });
  }

  /** A fenced change of the record (setup progress), queued; rejects when the write failed. */
  update(change: (job: JobRecord) => JobRecord): Promise<void> {
    return this.enqueue(async () => {
      await this.store.update(this.id, change, { fence: this.fence });
    });
  }

  /**
   * A change of the record after this execution's terminal state was written (what its agent left
   * running, once settled): that write gave up the ownership the fence proves, so this one is kept to
   * the same generation, still ended (a retry moved on: nothing is written). Queued; rejects on failure.
   */
  afterEnd(change: (job: JobRecord) => void): Promise<void> {
    return this.enqueue(async () => {
      await this.store.update(this.id, (job) => {
        if (job.lifecycle.generation !== this.fence.generation || !isTerminalState(job.lifecycle.state)) return;
        change(job);
      });
    });
  }

  /** Queued; a failure is logged, never thrown. */
  timeline(type: string, message: string): void {
    this.enqueue(() => this.store.appendTimeline(this.id, { generation: this.fence.generation, type, message })).catch(() => undefined);
  }

  /**
   * Kept in the record's detail while the agent runs or waits (`show`, the tree): "waiting
   * (pattern) · <note>", or the note alone while it runs. Written now, queued and fenced.
   */
  setNote(note: string): void {
    this.note = note;
    this.enqueue(() =>
      this.store.update(
        this.id,
        (job) => {
          const l = job.lifecycle;
          if (l.state === 'running' || l.state === 'waiting') l.detail = this.detailFor(l.state === 'waiting' ? l.waitingReason : null);
        },
        { fence: this.fence },
      ),
    ).catch(() => undefined);
  }

  /** The detail while running (`reason` null) or waiting, with the note. */
  private detailFor(reason: WaitingReason | null | undefined): string | null {
    const words = reason ? `waiting (${reason})` : null;
    if (this.note === null) return words;
    // Whole: the store redacts the detail, then cuts it (messageRedaction.ts).
    return words ? `${words} · ${this.note}` : this.note;
  }

  /** Cheap on every output chunk: stamps the time; the first call after a write arms one timer. */
  noteActivity(): void {
    this.lastActivity = new Date();
    this.activityWritten = false;
    if (this.activityTimer || this._store.isDisposed) return;
    const delay = Math.max(0, this.lastActivityWriteAt + this.activityWriteMs - Date.now());
    this.activityTimer = setTimeout(() => {
      this.activityTimer = undefined;
      this.writeActivity();
    }, delay);
    this.activityTimer.unref?.();
  }

  /** Requests running (null) or waiting; written within a second, only while running or waiting. */
  setWaiting(reason: WaitingReason | null): void {
    this.desiredWaiting = reason;
    if (this.waitingTimer || this._store.isDisposed) return;
    const delay = Math.max(0, this.lastWaitingWriteAt + STATE_WRITE_INTERVAL_MS - Date.now());
    this.waitingTimer = setTimeout(() => {
      this.waitingTimer = undefined;
      this.lastWaitingWriteAt = Date.now();
      this.enqueue(() => this.applyWaiting()).catch(() => undefined);
    }, delay);
  }

  /** Stops waiting/activity writes (the execution is ending). */
  freeze(): void {
    this.dispose();
  }

  private async applyWaiting(): Promise<void> {
    const from = this.current;
    if (this._store.isDisposed || (from !== 'running' && from !== 'waiting')) return;
    const want = this.desiredWaiting;
    const to: LifecycleState = want ? 'waiting' : 'running';
    if (to === from) {
      // Still waiting, for a better-known reason: the agent's own signal after the profile's pattern
      // guessed it first (on a busy machine the screen check can win the race). The reason is rewritten.
      if (to === 'waiting' && want !== null) await this.rewriteWaitingReason(want);
      return;
    }
    const activity = this.lastActivity;
    await this.store.transition(
      this.id,
      to,
      { waitingReason: want, lastActivityAt: activity.toISOString(), detail: this.detailFor(want) },
      { fence: this.fence, expectFrom: ['running', 'waiting'] },
    );
    this.current = to;
    this.markActivityWritten(activity);
  }

  private async rewriteWaitingReason(reason: WaitingReason): Promise<void> {
    await this.store.update(
      this.id,
      (job) => {
        if (job.lifecycle.state !== 'waiting' || job.lifecycle.waitingReason === reason) return;
        job.lifecycle.waitingReason = reason;
        job.lifecycle.detail = this.detailFor(reason);
      },
      { fence: this.fence },
    );
  }

  /** A write carried the activity time `written`: unless newer activity came meanwhile, the activity timer has nothing left to do. */
  private markActivityWritten(written: Date = this.lastActivity): void {
    this.lastActivityWriteAt = Date.now();
    if (written !== this.lastActivity) return; // newer activity: its timer stays armed
    this.activityWritten = true;
    if (this.activityTimer) {
      clearTimeout(this.activityTimer);
      this.activityTimer = undefined;
    }
  }

  private writeActivity(): void {
    if (this.activityWritten || this._store.isDisposed) return;
    this.markActivityWritten();
    const at = this.lastActivity.toISOString();
    this.enqueue(() =>
      this.store.update(
        this.id,
        (job) => {
          job.lifecycle.lastActivityAt = at;
        },
        { fence: this.fence },
      ),
    ).catch(() => undefined);
  }

  private enqueue<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.writes.then(fn);
    this.writes = next.catch((err) => this.log(`record write failed: ${describeError(err)}`));
    return next;
  }

  /** Resolves when every queued write has been attempted. */
  async settled(): Promise<void> {
    await this.writes;
  }
}
