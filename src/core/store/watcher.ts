/**
 * Tells readers (the coordinator, the tree) which job changed without re-reading
 * every record: every committed write rewrites `changes/<id>`, which is watched
 * with fs.watch. A periodic full list (which also reconciles dead owners, who
 * never write again) is the safety net for missed events and other machines'
 * writers on shared file systems.
 */
import * as fs from 'node:fs';
import { Disposable, disposableInterval, disposableTimeout, IDisposable, toDisposable } from '../common/lifecycle';
import { Emitter, Event } from '../common/event';
import { isJobId } from './paths';
import type { JobEntry } from './jobStore';

export interface JobWatcher extends IDisposable {
  /** Fires with a job id after that job's record changed (or appeared). */
  readonly onDidChangeJob: Event<string>;
}

export interface WatchOptions {
  /** Period of the full reconcile; 0 disables it. Default 60 s. */
  reconcileIntervalMs?: number;
  /** Changes to one job within this window fire once. Default 20 ms. */
  debounceMs?: number;
}

export interface WatchSource {
  changesDir: string;
  list(): Promise<JobEntry[]>;
  log(msg: string): void;
}

export class StoreWatcher extends Disposable implements JobWatcher {
  private readonly emitter = this._register(new Emitter<string>());
  readonly onDidChangeJob = this.emitter.event;
  private readonly pending = new Map<string, IDisposable>();
  private readonly seen = new Map<string, string>();
  private reconciling = false;

  constructor(private readonly source: WatchSource, private readonly opts: WatchOptions = {}) {
    super();
    try {
      const watcher = fs.watch(source.changesDir, { persistent: false }, (_event, filename) => {
        const name = filename?.toString();
        if (name && isJobId(name)) this.schedule(name);
      });
      watcher.on('error', (err) => source.log(`store watcher: ${err.message}; relying on the periodic reconcile`));
      this._register(toDisposable(() => watcher.close()));
    } catch (err) {
      source.log(`store watcher unavailable (${(err as Error).message}); relying on the periodic reconcile`);
    }
    this._register(toDisposable(() => this.pending.forEach((d) => d.dispose())));
    // Only a safety net: every write signals its change file, and dead owners (who never write
    // again) are reconciled by the leader's own pass, whose write every watcher sees. Each pass
    // reads every record, in every window: it was 12 full reads a minute per window at 5 s.
    const interval = opts.reconcileIntervalMs ?? 60_000;
    if (interval > 0) {
      // The first pass only records what is there, so it fires nothing.
      void this.reconcile(false);
      this._register(disposableInterval(() => void this.reconcile(true), interval));
    }
  }

  /** One full pass now: fires for every job whose entry differs from the last pass. */
  async reconcile(fire = true): Promise<void> {
    if (this.reconciling || this._store.isDisposed) return;
    this.reconciling = true;
    try {
      const entries = await this.source.list();
      for (const entry of entries) {
        const signature = JSON.stringify(entry);
        if (this.seen.get(entry.id) !== signature) {
          this.seen.set(entry.id, signature);
          if (fire && !this._store.isDisposed) this.emitter.fire(entry.id);
        }
      }
    } catch (err) {
      this.source.log(`store reconcile failed: ${(err as Error).message}`);
    } finally {
      this.reconciling = false;
    }
  }

  private schedule(id: string): void {
    if (this.pending.has(id) || this._store.isDisposed) return;
    this.pending.set(
      id,
      disposableTimeout(() => {
        this.pending.delete(id);
        if (!this._store.isDisposed) this.emitter.fire(id);
      }, this.opts.debounceMs ?? 20),
    );
  }
}

/** A wait begun before a read, so that a change made between the read and the wait is not missed. */
export interface ChangeWait {
  /** Resolves at the first change (of `id`, when given) after the wait began, or once `timeoutMs` passed. */
  readonly done: Promise<void>;
  /** Ends the wait now; nothing of it is left on the watcher. */
  cancel(): void;
}

export function waitForChange(watcher: JobWatcher, timeoutMs: number, id?: string): ChangeWait {
  let end!: () => void;
  const done = new Promise<void>((resolve) => (end = resolve));
  const subscription = watcher.onDidChangeJob((changed) => {
    if (id === undefined || changed === id) cancel();
  });
  const timer = setTimeout(() => cancel(), timeoutMs);
  function cancel(): void {
    clearTimeout(timer);
    subscription.dispose();
    end();
  }
  return { done, cancel };
}
