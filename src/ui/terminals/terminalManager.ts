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

  constructor(
    private readonly store: JobStore,
    private readonly memento: vscode.Memento,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
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
    terminal.show(opts.preserveFocus ?? false);
    void this.remember();
    return attached;
  }

  /** Re-attaches the terminals that were open before the window reloaded, for agents still running. */
  async restore(): Promise<number> {
    const remembered = readRemembered(this.memento.get<unknown>(MEMENTO_KEY, []));
    let restored = 0;
    for (const r of stillToAttach(remembered, this.openTerminals())) {
      try {
        const job = await this.store.read(r.jobId);
        if (isTerminalState(job.lifecycle.state)) continue;
        this.attach(job.id, job.title, { readOnly: r.readOnly, preserveFocus: true });
        restored++;
      } catch (err) {
        this.log.debug(`not re-attaching ${r.jobId}: ${(err as Error).message}`);
      }
    }
    await this.remember();
    return restored;
  }

  private openTerminals(): RememberedTerminal[] {
    return [...this.open].map((t) => ({ jobId: t.pty.options.jobId, readOnly: t.pty.options.readOnly }));
  }

  private async remember(): Promise<void> {
    await this.memento.update(MEMENTO_KEY, this.openTerminals());
  }

  override dispose(): void {
    // Window closing or reloading: keep the memento as it is (so terminals come back), detach quietly.
    for (const t of this.open) t.pty.dispose();
    this.open.clear();
    super.dispose();
  }
}
