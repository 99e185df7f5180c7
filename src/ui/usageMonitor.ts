/**
 * Samples the per-agent figures while someone looks: only while the Agents
 * view is visible and shows an agent that has figures (a running agent, or a
 * worktree on disk), every few seconds, one sample at a time. Hidden view, no
 * agents: no timer, no work.
 *
 * The sampler runs in the extension host itself, but never holds its event
 * loop: every read (/proc, the worktree, the transcripts) is an asynchronous
 * call made a few at a time, and the portable backend's `ps` runs as a child
 * process. Writes go through the one door (`sampleAndRecordUsage`: the store's
 * locked write path, only when a figure moved by more than 5 %).
 */
import type * as vscode from 'vscode';
import { Disposable, disposableTimeout, MutableDisposable, type IDisposable } from '../core/common/lifecycle';
import { describeError } from '../core/common/errors';
import { sampleAndRecordUsage } from '../core/operations/recordUsage';
import type { JobStore } from '../core/store';
import { hasUsageToSample } from '../core/usage/currentUsage';
import { UsageSampler } from '../core/usage/sampler';
import type { AgentsModel } from './model/agentsModel';

/** Between the end of one sample and the start of the next. */
export const USAGE_SAMPLE_MS = 5000;

export class UsageMonitor extends Disposable {
  private readonly timer = this._register(new MutableDisposable<IDisposable>());
  private readonly sampler: UsageSampler;
  private running: Promise<void> | undefined;

  constructor(
    private readonly store: JobStore,
    private readonly model: AgentsModel,
    private readonly view: vscode.TreeView<unknown>,
    private readonly log: (message: string) => void,
  ) {
    super();
    this.sampler = new UsageSampler({ outputDir: (id) => store.outputDir(id) });
    this._register(view.onDidChangeVisibility(() => this.wake()));
    this._register(model.onDidChange(() => this.wake()));
    this.wake();
  }

  /** Whether a sample is due or under way (tests). */
  get active(): boolean {
    return this.timer.value !== undefined || this.running !== undefined;
  }

  /** Samples now (the first sample after the view shows, and tests); resolves when recorded. */
  sampleNow(): Promise<void> {
    this.running ??= this.sample().finally(() => {
      this.running = undefined;
      this.wake(USAGE_SAMPLE_MS);
    });
    return this.running;
  }

  private wanted() {
    return this.view.visible ? this.model.visibleAgents().filter(hasUsageToSample) : [];
  }

  /** Starts sampling when someone looks at agents with figures; stops when nobody does. */
  private wake(delayMs = 0): void {
    if (this._store.isDisposed) return;
    if (this.wanted().length === 0) {
      this.timer.clear();
      return;
    }
    if (this.timer.value || this.running) return;
    this.timer.value = disposableTimeout(() => {
      this.timer.clear();
      void this.sampleNow();
    }, delayMs);
  }

  private async sample(): Promise<void> {
    const jobs = this.wanted();
    if (jobs.length === 0) return;
    try {
      await sampleAndRecordUsage(this.store, this.sampler, jobs, this.log);
    } catch (err) {
      this.log(`Sampling the agents' figures failed: ${describeError(err)}`);
    }
  }
}
