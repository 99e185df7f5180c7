/**
 * The window's one model of the agents: every view (tree, status bar, badge,
 * notifier, pickers) reads it, none reads the store. Fed by the process's one
 * store watcher (the coordinator's `onDidChangeJob`), with no polling of its
 * own. A burst of per-job changes is coalesced into one update naming the
 * changed ids (VS Code's `Event.accumulate` pattern, over a fixed window so a
 * steady stream cannot starve it). It knows which agents this window shows:
 * those of its workspace folders' repositories.
 */
import * as vscode from 'vscode';
import { Disposable, disposableTimeout, IDisposable } from '../../core/common/lifecycle';
import type { Event } from '../../core/common/event';
import type { JobEntry, JobStore } from '../../core/store';
import { readEntries } from '../../core/store/readEntries';
import type { JobRecord } from '../../core/store/schema';

/** Changes arriving within this window become one update. */
export const MODEL_DEBOUNCE_MS = 100;

export interface AgentsChange {
  /** Jobs whose record changed (visible or not). */
  readonly ids: readonly string[];
  /** The set of agents shown, or their grouping, may have changed: re-render from the root. A change of state is not one (the tree itself tells whether a row moved). */
  readonly structural: boolean;
}

/** A visible agent's record changed; `before` is the record as this window last saw it. */
export interface AgentTransition {
  readonly before: JobRecord;
  readonly after: JobRecord;
}

export interface UnreadableAgent {
  readonly id: string;
  readonly reason: string;
  /** Its worker still holds its execution: it can be stopped by its marker. */
  readonly workerRunning?: true;
}

export class AgentsModel extends Disposable {
  private readonly changeEmitter = this._register(new vscode.EventEmitter<AgentsChange>());
  readonly onDidChange = this.changeEmitter.event;
  private readonly transitionEmitter = this._register(new vscode.EventEmitter<AgentTransition[]>());
  /** Changed records of visible agents seen before (never old news at window start). */
  readonly onDidTransition = this.transitionEmitter.event;

  private readonly jobs = new Map<string, JobRecord>();
  private readonly broken = new Map<string, UnreadableAgent>();
  private repos: readonly string[] = [];
  private reposKnown = false;
  private loaded: Promise<void> | undefined;
  private readonly pending = new Set<string>();
  private flushTimer: IDisposable | undefined;
  private flushing: Promise<void> = Promise.resolve();
  /**
   * The store's change notices, counted, and each agent's latest: what a listing read before it may
   * not know. Kept for agents that went too (a number each), or an older listing would bring them back.
   */
  private notices = 0;
  private readonly lastNotice = new Map<string, number>();

  constructor(
    private readonly store: JobStore,
    onDidChangeJob: Event<string>,
    private readonly log: (message: string) => void,
  ) {
    super();
    this._register(onDidChangeJob((id) => this.schedule(id)));
    this._register({ dispose: () => this.flushTimer?.dispose() });
  }

  /** The repositories this window shows (its workspace folders'); none: every agent in the store. */
  setWorkspaceRepos(repos: readonly string[]): void {
    this.repos = [...new Set(repos)];
    this.reposKnown = true;
    this.changeEmitter.fire({ ids: [], structural: true });
  }

  get workspaceRepos(): readonly string[] {
    return this.repos;
  }

  /** Resolves once the first full read has finished. */
  ready(): Promise<void> {
    this.loaded ??= this.reload();
    return this.loaded;
  }

  /** Where the store's change notices stand: taken before a listing is read, and handed to `reload` with it. */
  noticeMark(): number {
    return this.notices;
  }

  /**
   * Re-reads every record: the first load and the Refresh command (which hands in its own `listing`,
   * read after its `readAfter` = noticeMark()), never on a timer. An agent noticed changed since that mark
   * is left as the model has it, or will have it from its own read: the listing may be older (an agent
   * created after it was read, or one that ended since, would be dropped or shown as it was).
   */
  async reload(given?: { listing: readonly JobEntry[]; readAfter: number }): Promise<void> {
    const readAfter = given?.readAfter ?? this.notices;
    let entries: readonly JobEntry[];
    try {
      entries = given?.listing ?? (await this.store.list());
    } catch (err) {
      this.log(`Cannot list agents: ${(err as Error).message}`);
      return;
    }
    const newer = (id: string) => (this.lastNotice.get(id) ?? 0) > readAfter;
    const seen = new Set(entries.map((e) => e.id));
    for (const id of [...this.jobs.keys(), ...this.broken.keys()]) {
      if (!seen.has(id) && !newer(id)) {
        this.jobs.delete(id);
        this.broken.delete(id);
      }
    }
    const transitions = entries.flatMap((e) => (newer(e.id) ? [] : this.apply(e)));
    this.changeEmitter.fire({ ids: [...seen], structural: true });
    if (transitions.length) this.transitionEmitter.fire(transitions);
  }

  /** Reads the given jobs now, skipping the debounce (tests; commands that just wrote). */
  async refresh(...ids: string[]): Promise<void> {
    for (const id of ids) this.pending.add(id);
    await this.flush();
  }

  /** Visible agents: those of this window's repositories. */
  visibleAgents(): JobRecord[] {
    return [...this.jobs.values()].filter((job) => this.isVisible(job));
  }

  /** Records that cannot be read (no repository to filter by: shown everywhere, they need a person). */
  unreadable(): UnreadableAgent[] {
    return [...this.broken.values()];
  }

  get(id: string): JobRecord | undefined {
    return this.jobs.get(id);
  }

  isVisible(job: JobRecord): boolean {
    // Until the workspace's repositories are known, show nothing rather than everyone's agents.
    if (!this.reposKnown) return false;
    return this.repos.length === 0 || this.repos.includes(job.repo);
  }

  private schedule(id: string): void {
    this.lastNotice.set(id, ++this.notices);
    this.pending.add(id);
    this.flushTimer ??= disposableTimeout(() => {
      this.flushTimer = undefined;
      void this.flush();
    }, MODEL_DEBOUNCE_MS);
  }

  private flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      await this.ready();
      const ids = [...this.pending];
      this.pending.clear();
      if (ids.length === 0 || this._store.isDisposed) return;
      let entries: JobEntry[];
      try {
        entries = await readEntries(this.store, ids);
      } catch (err) {
        this.log(`Cannot read agents ${ids.join(', ')}: ${(err as Error).message}`);
        return;
      }
      let structural = false;
      const transitions: AgentTransition[] = [];
      for (const entry of entries) {
        const before = this.jobs.get(entry.id);
        const hadBroken = this.broken.has(entry.id);
        if (!entry.ok && entry.reason === 'no such agent') {
          structural ||= this.jobs.delete(entry.id) || this.broken.delete(entry.id);
          continue;
        }
        transitions.push(...this.apply(entry));
        const after = this.jobs.get(entry.id);
        structural ||= !before !== !after || hadBroken !== this.broken.has(entry.id) || before?.repo !== after?.repo;
      }
      if (this._store.isDisposed) return;
      this.changeEmitter.fire({ ids, structural });
      if (transitions.length) this.transitionEmitter.fire(transitions);
    });
    return this.flushing;
  }

  /** Updates the cache from one entry; returns the transition to report (visible, seen before, state changed). */
  private apply(entry: JobEntry): AgentTransition[] {
    if (!entry.ok) {
      this.jobs.delete(entry.id);
      this.broken.set(entry.id, { id: entry.id, reason: entry.reason, ...(entry.workerRunning ? { workerRunning: true as const } : {}) });
      return [];
    }
    const after = entry.job;
    this.broken.delete(entry.id);
    const before = this.jobs.get(after.id);
    this.jobs.set(after.id, after);
    if (!before || !this.isVisible(after) || !meaningfullyChanged(before, after)) return [];
    return [{ before, after }];
  }
}

function meaningfullyChanged(before: JobRecord, after: JobRecord): boolean {
  return (
    before.lifecycle.state !== after.lifecycle.state ||
    before.lifecycle.generation !== after.lifecycle.generation ||
    before.cleanup?.phase !== after.cleanup?.phase ||
    before.cleanup?.needsAttention !== after.cleanup?.needsAttention
  );
}
