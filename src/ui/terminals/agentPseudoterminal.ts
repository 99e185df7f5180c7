/**
 * An integrated terminal attached to an agent through its worker's control
 * socket. It buffers until VS Code opens it, attaches with the terminal's real
 * size, replays the exact current screen, then streams. Closing it detaches:
 * the agent keeps running. A lost connection shows "(disconnected)" and a dim
 * status line, and reconnects with backoff until the agent ends; keys typed before a screen is back
 * are not sent, and it says so (bug 171). A reconnect that finds a new
 * generation (a Retry meanwhile) says so, keeps the old run's output above the new screen, and
 * names the generation in the title until the first keystroke.
 */
import * as vscode from 'vscode';
import { Disposable, disposableTimeout, IDisposable } from '../../core/common/lifecycle';
import { WorkerClient } from '../../core/protocol/client';
import type { ReadyMessage } from '../../core/protocol/messages';
import { RESET_TERMINAL_MODES } from '../../core/protocol/terminalModes';
import type { JobStore } from '../../core/store';
import { lifecycleDetail } from '../../core/store/leftoverWords';
import { isTerminalState, JobRecord } from '../../core/store/schema';
import { printable } from '../../core/common/printable';
import { endNotice, paddockLine } from './endNotice';
import { ReconnectNotices } from './reconnectNotice';
import { unsentInputWords } from '../../core/protocol/unsentInput';
import { AlternateScreenWatch, alternateScreenNotice } from './alternateScreen';
import { CLEAR_ALL, CLEAR_VIEW, newGenerationNotice, newGenerationTitle } from './generationNotice';

const dim = paddockLine;
const MAX_BACKOFF_MS = 5000;
/** How often a terminal opened on a queued or starting agent looks again. */
const WAIT_FOR_START_MS = 500;

export interface AgentTerminalOptions {
  jobId: string;
  title: string;
  readOnly: boolean;
}

export class AgentPseudoterminal extends Disposable implements vscode.Pseudoterminal {
  private readonly writeEmitter = this._register(new vscode.EventEmitter<string>());
  readonly onDidWrite = this.writeEmitter.event;
  private readonly closeEmitter = this._register(new vscode.EventEmitter<number | void>());
  readonly onDidClose = this.closeEmitter.event;
  private readonly nameEmitter = this._register(new vscode.EventEmitter<string>());
  readonly onDidChangeName = this.nameEmitter.event;

  private opened = false;
  private readonly pending: string[] = [];
  private client: WorkerClient | undefined;
  private clientSubscriptions: IDisposable[] = [];
  private dimensions: vscode.TerminalDimensions | undefined;
  private backoffMs = 250;
  private reconnectTimer: IDisposable | undefined;
  private ended = false;
  private closed = false;
  private saidWaiting = false;
  /** Whether a screen was ever shown here: a failure after it lost the connection, one before never had it. */
  private attachedOnce = false;
  /** What this spell of reconnecting has said (reset when a screen comes). */
  private readonly notices = new ReconnectNotices();
  /** The generation whose screen this terminal shows: a reconnect to another one says so (bug 168). */
  private shownGeneration: number | undefined;
  /** The generation the title names until the first keystroke: the dim line that says so is scrolled off. */
  private retriedTo: number | undefined;
  /**
   * Whether the title says keys typed before this screen were not sent, until the first keystroke:
   * the dim line that said it is cleared with the old screen by the new one (bug 171).
   */
  private unsentInTitle = false;
  /**
   * Whether the current connection's screen has been written: until then keys go nowhere. Sent
   * between the attach and its screen, they reached a Retry's new generation before the person
   * saw it, typed at the old run's screen (bug 171).
   */
  private screenShown = false;
  /** Whether the terminal is on the alternate screen: a full-screen agent's last screen is kept there (bug 172). */
  private readonly screenWatch = new AlternateScreenWatch();

  constructor(
    private readonly store: JobStore,
    readonly options: AgentTerminalOptions,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
  }

  get name(): string {
    return `${this.options.readOnly ? '👁 ' : ''}${printable(this.options.title)}`;
  }

  open(initialDimensions: vscode.TerminalDimensions | undefined): void {
    this.opened = true;
    this.dimensions = initialDimensions;
    for (const chunk of this.pending.splice(0)) this.writeEmitter.fire(chunk);
    void this.connect(false);
  }

  close(): void {
    // The person closed the terminal: detach only. The agent keeps running.
    this.closed = true;
    this.client?.detach();
    this.dispose();
  }

  handleInput(data: string): void {
    if (this.ended || this.options.readOnly) return;
    // Keys typed at an old screen (no connection, or this one's screen not written yet) are not sent
    // (bug 171). On a first attach no screen was ever shown: what follows the attach goes to the
    // agent, as it did and as tmux does.
    if (!this.client || (!this.screenShown && this.attachedOnce)) {
      const words = this.notices.notSent(this.attachedOnce);
      if (words) this.writeNotice(words, dim);
      return;
    }
    if (this.retriedTo !== undefined || this.unsentInTitle) {
      // Typed with the title in view: it has been read, and the title goes back to the agent's.
      this.retriedTo = undefined;
      this.unsentInTitle = false;
      this.nameEmitter.fire(this.name);
    }
    this.client.input(data);
  }

  setDimensions(dimensions: vscode.TerminalDimensions): void {
    this.dimensions = dimensions;
    if (!this.options.readOnly) this.client?.resize(dimensions.columns, dimensions.rows);
  }

  override dispose(): void {
    this.closed = true;
    this.reconnectTimer?.dispose();
    this.dropClient();
    super.dispose();
  }

  private write(text: string): void {
    this.screenWatch.note(text);
    if (this.opened) this.writeEmitter.fire(text);
    else this.pending.push(text);
  }

  private async connect(reconnecting: boolean): Promise<void> {
    if (this.closed) return;
    const { jobId } = this.options;
    try {
      const job = await this.store.read(jobId);
      if (isTerminalState(job.lifecycle.state)) {
        this.finish(job, reconnecting);
        return;
      }
      if (job.lifecycle.state === 'queued' || (job.lifecycle.state === 'starting' && !job.execution)) {
        // Not started yet (waiting for a free slot, or its worker is starting): say so once, then wait quietly.
        if (!this.saidWaiting) {
          this.saidWaiting = true;
          this.writeNotice(job.lifecycle.state === 'queued'
            ? 'the agent is queued: all agent slots are in use (paddock.maxConcurrent); it starts when one frees.'
            : 'the agent is starting…', (words) => dim(words).replace(/^\r\n/, ''));
        }
        this.reconnectTimer?.dispose();
        this.reconnectTimer = disposableTimeout(() => void this.connect(reconnecting), WAIT_FOR_START_MS, false);
        return;
      }
      const client = await WorkerClient.connect(this.store, jobId, { connectTimeoutMs: 3000 });
      if (this.closed) {
        client.dispose();
        return;
      }
      this.adopt(client);
      const cols = this.dimensions?.columns ?? 80;
      const rows = this.dimensions?.rows ?? 24;
      const ready = await client.attach({ cols, rows, readOnly: this.options.readOnly });
      this.backoffMs = 250;
      this.attachedOnce = true;
      // Said before the screen, the not-sent notice is cleared with the old screen: the title keeps it.
      this.unsentInTitle = this.notices.saidNotSent;
      this.notices.reset();
      this.showScreen(ready, client.generation);
      this.screenShown = true;
      if (reconnecting || this.unsentInTitle) this.nameEmitter.fire(this.title());
      if (ready.exit) this.onExit(ready.exit.code, ready.exit.signal, ready.state);
    } catch (err) {
      if (this.closed) return;
      this.dropClient();
      this.log.debug(`terminal for ${jobId}: ${(err as Error).message}`);
      this.scheduleReconnect((err as Error).message);
    }
  }

  private adopt(client: WorkerClient): void {
    this.dropClient();
    this.client = client;
    this.clientSubscriptions = [
      client.onDidOutput((data) => this.write(data)),
      client.onDidReady((ready) => this.showScreen(ready)),
      client.onDidExit((exit) => this.onExit(exit.code, exit.signal, exit.state)),
      client.onDidError((message) => this.write(dim(message))),
      client.onDidClose(({ reason, unsentInput }) => {
        if (this.closed || this.ended) return;
        this.dropClient();
        this.scheduleReconnect(reason ?? 'the connection closed');
        // A paste cut short by the lost connection: its end never reached the agent (bug 204).
        if (unsentInput > 0 && !this.options.readOnly) this.writeNotice(unsentInputWords(unsentInput), dim);
      }),
    ];
  }

  private dropClient(): void {
    for (const d of this.clientSubscriptions) d.dispose();
    this.clientSubscriptions = [];
    this.screenShown = false;
    this.client?.dispose();
    this.client = undefined;
  }

  private showScreen(ready: ReadyMessage, generation = this.shownGeneration): void {
    const previous = this.shownGeneration;
    this.shownGeneration = generation;
    if (previous === undefined || generation === undefined || generation === previous) {
      this.write(`${RESET_TERMINAL_MODES}${CLEAR_ALL}${ready.screen}`);
      return;
    }
    this.retriedTo = generation;
    this.write(`${newGenerationNotice(this.dimensions?.rows ?? ready.rows, previous, generation)}${RESET_TERMINAL_MODES}${CLEAR_VIEW}${ready.screen}`);
  }

  private scheduleReconnect(reason: string): void {
    if (this.closed || this.ended) return;
    this.nameEmitter.fire(`${this.name} (disconnected)`);
    const why = reason.replace(/\.$/, '');
    this.log.debug(`terminal for ${this.options.jobId}: reconnecting in ${this.backoffMs} ms (${why})`);
    // Said once a spell, and again only for a reason not said yet; the title says it is still disconnected.
    const notice = this.notices.next(reason, this.attachedOnce);
    // The agent's modes (mouse reporting, hidden cursor) would stay on with nobody drawing: the text
    // could not be selected. A reconnect's screen sets them again. A full-screen agent's last screen
    // is on the alternate screen, which has no scrollback: the notice stays on it (bug 172), and the
    // reconnect's screen (or a new generation's notice) leaves it.
    if (notice) this.writeNotice(notice.words, notice.first ? endNotice : dim);
    this.reconnectTimer?.dispose();
    this.reconnectTimer = disposableTimeout(() => void this.connect(true), this.backoffMs, false);
    this.backoffMs = Math.min(MAX_BACKOFF_MS, this.backoffMs * 2);
  }

  private onExit(code: number | null, signal: string | null, state: JobRecord['lifecycle']['state']): void {
    if (this.ended) return;
    this.ended = true;
    const how = signal ? `was killed by ${signal}` : `exited with code ${code ?? '?'}`;
    this.write(endNotice(`the agent ${how} (${state}). Close this terminal when you are done reading.`));
    this.nameEmitter.fire(`${this.name} (ended)`);
  }

  private finish(job: JobRecord, reconnecting: boolean): void {
    if (reconnecting) this.nameEmitter.fire(`${this.name} (ended)`);
    this.ended = true;
    const l = job.lifecycle;
    const detail = lifecycleDetail(job);
    // As at an exit: its worker died (orphaned) or it ended unseen; the agent's modes go with it. A
    // full-screen agent's last screen, kept while reconnecting, stays in view under the notice (bug 172).
    const words = `agent ${job.id} is ${l.state}${l.exitCode !== null ? ` (exit ${l.exitCode})` : ''}${detail ? `: ${printable(detail)}` : ''}. Its output is in "Paddock: Show Agent Log".`;
    this.writeNotice(words, endNotice);
  }

  /**
   * Every notice written while no screen of the agent is live: on the alternate screen (a
   * full-screen agent's last screen kept, bug 172) one row each, so the kept screen moves up one
   * row a notice and no notice joins the row of the one before; else as `normal` writes it.
   */
  private writeNotice(words: string, normal: (words: string) => string): void {
    const { rows = 24, columns = 80 } = this.dimensions ?? {};
    this.write(this.screenWatch.on ? alternateScreenNotice(rows, columns, words) : normal(words));
  }

  /** The agent's title, with what the person has not read yet (a Retry's generation, keys not sent). */
  private title(): string {
    const name = this.retriedTo === undefined ? this.name : newGenerationTitle(this.name, this.retriedTo);
    return this.unsentInTitle ? `${name} (what you typed was not sent)` : name;
  }
}
