/**
 * Opens attached terminals and remembers them, so the terminals that were
 * attached when the window reloaded are attached again after it (VS Code does
 * not restore transient terminals; Paddock does, for agents still running).
 */
import * as vscode from 'vscode';
import { Disposable } from '../../core/common/lifecycle';
import type { JobStore } from '../../core/store';
import { isTerminalState } from '../../core/store/schema';
import { AgentPseudoterminal } from './agentPseudoterminal';
import { readRemembered, RememberedTerminal, stillToAttach } from './rememberedTerminals';

const MEMENTO_KEY = 'paddock.attachedTerminals';

export interface AttachedTerminal {
  terminal: vscode.Terminal;
  pty: AgentPseudoterminal;
}

export class TerminalManager extends Disposable {
  private readonly open = new Set<AttachedTerminal>();
  /**
   * The terminals remembered from before the reload and not restored yet, read before anything
   * can write the list: `restore()` waits for the repositories and agents, and a terminal the
   * person attaches or closes meanwhile rewrites it. Read then, the others were gone for good.
   */
  private readonly notRestored: RememberedTerminal[];
  /**
   * The terminals that stand for a remembered entry already taken off the list: those `restore()`
   * opened, and one the person opened that an entry was skipped for. Each stands for one entry only.
   */
  private readonly restoredHere = new WeakSet<AttachedTerminal>();

  constructor(
    private readonly store: JobStore,
    private readonly memento: vscode.Memento,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    this.notRestored = readRemembered(this.memento.get<unknown>(MEMENTO_KEY, []));
    this._register(
      vscode.window.onDidCloseTerminal((terminal) => {
        for (const t of this.open) {
          if (t.terminal !== terminal) continue;
          this.open.delete(t);
          // Closed because the window is going away: keep it remembered so it comes back.
          if (terminal.exitStatus?.reason !== vscode.TerminalExitReason.Shutdown) void this.remember();
        }
      }),
    );
  }

  /** Terminals attached to a job in this window. */
  terminalsFor(jobId: string): AttachedTerminal[] {
    return [...this.open].filter((t) => t.pty.options.jobId === jobId);
  }

  attach(jobId: string, title: string, opts: { readOnly?: boolean; preserveFocus?: boolean } = {}): AttachedTerminal {
    return this.openTerminal(jobId, title, opts, false);
  }

  private openTerminal(jobId: string, title: string, opts: { readOnly?: boolean; preserveFocus?: boolean }, restoring: boolean): AttachedTerminal {
    const readOnly = opts.readOnly ?? false;
    const pty = new AgentPseudoterminal(this.store, { jobId, title, readOnly }, this.log);
    const terminal = vscode.window.createTerminal({
      name: pty.name,
      pty,
      isTransient: true,
      iconPath: new vscode.ThemeIcon(readOnly ? 'eye' : 'hubot'),
    });
    const attached = { terminal, pty };
    this.open.add(attached);
    // Marked before the list is written: otherwise it would stand for a second entry alike as well.
    if (restoring) this.restoredHere.add(attached);
    terminal.show(opts.preserveFocus ?? false);
    void this.remember();
    return attached;
  }

  /** Re-attaches the terminals that were open before the window reloaded, for agents still running. */
  async restore(): Promise<number> {
    let restored = 0;
    for (const r of [...this.notRestored]) {
      try {
        const job = await this.store.read(r.jobId);
        if (isTerminalState(job.lifecycle.state)) continue;
        // Looked at after the read: a terminal alike that the person opened meanwhile stands for it,
        // for this entry only; unmarked, it would stand for the next alike as well (bug 152, review 2).
        const standIn = this.standInFor(r);
        if (standIn) {
          this.restoredHere.add(standIn);
          continue;
        }
        this.forget(r);
        this.openTerminal(job.id, job.title, { readOnly: r.readOnly, preserveFocus: true }, true);
        restored++;
      } catch (err) {
        this.log.debug(`not re-attaching ${r.jobId}: ${(err as Error).message}`);
      } finally {
        this.forget(r);
      }
    }
    await this.remember();
    return restored;
  }

  /** An open terminal alike that no remembered entry is taken by yet, if `r` is not still to restore. */
  private standInFor(r: RememberedTerminal): AttachedTerminal | undefined {
    if (this.stillToRestore().includes(r)) return undefined;
    return [...this.open].find((t) => !this.restoredHere.has(t) && t.pty.options.jobId === r.jobId && t.pty.options.readOnly === r.readOnly);
  }

  private forget(r: RememberedTerminal): void {
    const i = this.notRestored.indexOf(r);
    if (i >= 0) this.notRestored.splice(i, 1);
  }

  /** Remembered and not back yet, less one for each alike the person opened (restored ones took theirs off). */
  private stillToRestore(): RememberedTerminal[] {
    return stillToAttach(this.notRestored, this.openTerminals((t) => !this.restoredHere.has(t)));
  }

  private openTerminals(which: (t: AttachedTerminal) => boolean = () => true): RememberedTerminal[] {
    return [...this.open].filter(which).map((t) => ({ jobId: t.pty.options.jobId, readOnly: t.pty.options.readOnly }));
  }

  private async remember(): Promise<void> {
    await this.memento.update(MEMENTO_KEY, [...this.openTerminals(), ...this.stillToRestore()]);
  }

  override dispose(): void {
    // Window closing or reloading: keep the memento as it is (so terminals come back), detach quietly.
    for (const t of this.open) t.pty.dispose();
    this.open.clear();
    super.dispose();
  }
}
