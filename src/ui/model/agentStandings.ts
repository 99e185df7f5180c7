/**
 * Where each visible agent's work stands (core's StandingCache), kept fresh
 * without ever computing during a render: recomputed when the agents model
 * reports a record change (debounced there), when git writes in the agent's
 * own git directory or in its repository's (a commit, a staged file, a moved
 * base: fs.watch, no polling), and for live agents on a slow timer (they edit
 * files without touching the index). git runs in child processes through
 * runGit, a few agents at a time, so the extension host's loop stays free.
 */
import { watch, type FSWatcher } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { Disposable, disposableInterval, disposableTimeout, IDisposable, toDisposable } from '../../core/common/lifecycle';
import { hasStanding, StandingCache, type Standing } from '../../core/git';
import type { JobRecord } from '../../core/store/schema';
import type { AgentsModel } from './agentsModel';

/** git's writes come in bursts (index.lock, index, refs): one recheck after the burst. */
const WATCH_DEBOUNCE_MS = 300;
/** Running agents edit files without touching their index: their figures are rechecked this often. */
const LIVE_RECHECK_MS = 30_000;

export class AgentStandings extends Disposable {
  private readonly cache = new StandingCache();
  private readonly changeEmitter = this._register(new vscode.EventEmitter<string[]>());
  /** Agents whose standing changed (ids). */
  readonly onDidChange = this.changeEmitter.event;

  private readonly pending = new Set<string>();
  private readonly forced = new Set<string>();
  private timer: IDisposable | undefined;
  private running: Promise<void> = Promise.resolve();
  /** One watcher per watched folder, with the agents it concerns. */
  private readonly watchers = new Map<string, { watcher: FSWatcher; ids: Set<string> }>();

  constructor(
    private readonly model: AgentsModel,
    private readonly log: (message: string) => void,
    /** Whether anyone looks (the Agents view is visible): the live recheck's timer skips its work otherwise. */
    private readonly looked: () => boolean = () => true,
  ) {
    super();
    this._register(
      model.onDidChange((change) => {
        const ids = change.structural ? model.visibleAgents().map((j) => j.id) : change.ids;
        // A record that changed may mean a changed worktree: recompute those, key or not.
        this.schedule(change.ids, true);
        this.schedule(ids, false);
      }),
    );
    this._register(disposableInterval(() => this.looked() && this.recheckLive(), LIVE_RECHECK_MS));
    this._register(
      toDisposable(() => {
        this.timer?.dispose();
        for (const { watcher } of this.watchers.values()) watcher.close();
        this.watchers.clear();
      }),
    );
  }

  /** Recomputes the live agents' figures (they edit files without touching their index): on a timer, and when the view shows again. */
  recheckLive(): void {
    const live = this.model.visibleAgents().filter((j) => ['running', 'waiting', 'starting'].includes(j.lifecycle.state));
    this.schedule(live.map((j) => j.id), true);
  }

  /** The last computed standing (never computes: renders call this). */
  get(id: string): Standing | undefined {
    return this.cache.get(id);
  }

  /** Resolves when every requested recheck so far has finished (tests, commands that just changed git). */
  async settle(...ids: string[]): Promise<void> {
    if (ids.length) this.schedule(ids, true, 0);
    this.timer?.dispose();
    this.timer = undefined;
    this.flush();
    await this.running;
  }

  private schedule(ids: readonly string[], force: boolean, delay = WATCH_DEBOUNCE_MS): void {
    if (this._store.isDisposed || ids.length === 0) return;
    for (const id of ids) {
      this.pending.add(id);
      if (force) this.forced.add(id);
    }
    this.timer ??= disposableTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, delay);
  }

  private flush(): void {
    this.running = this.running.then(async () => {
      if (this.pending.size === 0 || this._store.isDisposed) return;
      const ids = [...this.pending];
      const jobs = ids.map((id) => this.model.get(id)).filter((j): j is JobRecord => j !== undefined && this.model.isVisible(j));
      // Forgotten or hidden agents: nothing to show, so nothing of theirs to watch.
      for (const id of ids) if (!jobs.some((j) => j.id === id)) this.unwatch(id);
      const force = new Set(this.forced);
      this.pending.clear();
      this.forced.clear();
      try {
        const changed = await this.cache.refresh(jobs, { force });
        for (const job of jobs) this.watchFor(job);
        for (const job of jobs) {
          const error = this.cache.entry(job.id)?.error;
          if (error) this.log(`standing of ${job.id}: ${error}`);
        }
        if (changed.length && !this._store.isDisposed) this.changeEmitter.fire(changed);
      } catch (err) {
        this.log(`could not compute where the agents' work stands: ${(err as Error).message}`);
      }
    });
  }

  /** Watches the agent's own git directory (its HEAD and index) and its repository's (the base's side). */
  private watchFor(job: JobRecord): void {
    const gitDir = this.cache.entry(job.id)?.gitDir;
    if (!hasStanding(job) || !gitDir) {
      this.unwatch(job.id);
      return;
    }
    this.watchFolder(gitDir, job.id);
    this.watchFolder(path.join(job.repo, '.git'), job.id);
    // A base branch moved by a commit elsewhere, a fetch or update-ref (branch names without a slash).
    this.watchFolder(path.join(job.repo, '.git', 'refs', 'heads'), job.id);
  }

  private watchFolder(folder: string, id: string): void {
    const known = this.watchers.get(folder);
    if (known) {
      known.ids.add(id);
      return;
    }
    try {
      // Not recursive: the files git rewrites for a commit or a staged change (index, HEAD) are at its top.
      const watcher = watch(folder, { persistent: false }, (_event, name) => {
        if (name && /\.lock$/.test(name)) return;
        const entry = this.watchers.get(folder);
        if (entry) this.schedule([...entry.ids], false);
      });
      watcher.on('error', () => {
        watcher.close();
        this.watchers.delete(folder);
      });
      this.watchers.set(folder, { watcher, ids: new Set([id]) });
    } catch {
      // A folder that cannot be watched (gone, a .git file of a submodule): the other triggers still apply.
    }
  }

  private unwatch(id: string): void {
    for (const [folder, entry] of this.watchers) {
      entry.ids.delete(id);
      if (entry.ids.size === 0) {
        entry.watcher.close();
        this.watchers.delete(folder);
      }
    }
  }
}
