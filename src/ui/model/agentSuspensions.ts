/**
 * Which visible agents are suspended (their worker or the agent stopped by SIGSTOP: core's
 * readSuspensions), kept for the tree to read without looking at processes during a render. A stop
 * writes nothing to the store, so live agents are looked at again on a timer while the view is
 * visible, and whenever the agents model reports a change. The look never holds the extension
 * host's loop (one `ps` child process, or the few /proc files of those processes), and is skipped without live agents.
 */
import * as vscode from 'vscode';
import { Disposable, disposableInterval } from '../../core/common/lifecycle';
import { storeSuspensions } from '../../core/operations/suspensions';
import type { JobStore } from '../../core/store';
import { readSuspensions, suspensionWords, type Suspension } from '../../core/store/suspension';
import { isTerminalState, type JobRecord } from '../../core/store/schema';
import type { AgentsModel } from './agentsModel';

/** How often the live agents' processes are looked at while the view shows them. */
export const SUSPENSION_RECHECK_MS = 5000;

export class AgentSuspensions extends Disposable {
  private current = new Map<string, Suspension>();
  private readonly changeEmitter = this._register(new vscode.EventEmitter<string[]>());
  /** Agents that became suspended or resumed (ids). */
  readonly onDidChange = this.changeEmitter.event;
  private running: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly model: AgentsModel,
    private readonly log: (message: string) => void,
    /** Whether anyone looks (the Agents view is visible): the timer skips its look otherwise. */
    private readonly looked: () => boolean = () => true,
    /** Names the launcher of a `starting` agent (its operation lock's holder); without it only the processes the records name are looked at. */
    private readonly store?: JobStore,
  ) {
    super();
    this._register(model.onDidChange(() => void this.recheck()));
    this._register(
      disposableInterval(() => {
        if (this.looked()) void this.recheck();
      }, SUSPENSION_RECHECK_MS),
    );
  }

  /** The last read suspension of the agent (never reads: renders call this). */
  get(id: string): Suspension | undefined {
    return this.current.get(id);
  }

  /** Looks at the live agents' processes now (one look at a time; a request during one makes one more). */
  recheck(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.look().finally(() => {
      this.running = undefined;
      if (this.again && !this._store.isDisposed) {
        this.again = false;
        void this.recheck();
      }
    });
    return this.running;
  }

  private async look(): Promise<void> {
    // An ended agent's check, cleanup or leftovers' ending runs on: its runner may be the stopped one.
    const atWork = (j: JobRecord) => (j.check?.runner ?? null) !== null || !!j.leftoversEnder || (j.cleanup !== null && j.cleanup.phase !== 'complete' && j.cleanup.phase !== 'incomplete');
    const live = this.model.visibleAgents().filter((j) => !isTerminalState(j.lifecycle.state) || atWork(j));
    if (live.length === 0 && this.current.size === 0) return;
    let next: Map<string, Suspension>;
    try {
      next = await (this.store ? storeSuspensions(this.store, live) : readSuspensions(live));
    } catch (err) {
      this.log(`could not tell whether agents are suspended: ${(err as Error).message}`);
      return;
    }
    if (this._store.isDisposed) return;
    const words = (s: Suspension | undefined) => (s ? suspensionWords(s) : '');
    const changed = [...new Set([...this.current.keys(), ...next.keys()])].filter((id) => words(this.current.get(id)) !== words(next.get(id)));
    this.current = next;
    if (changed.length > 0) this.changeEmitter.fire(changed);
  }
}
