/**
 * The worker's input side: everything typed into the agent's terminal — viewers' keys, texts sent
 * with Enter (one at a time), the prompt its argv does not carry (typed at the agent's waiting
 * prompt, typedPrompt.ts) and the mirror's replies to terminal queries — through the one writer of
 * its input (PtyInput). Kept out of AgentWorker, which opens it once the agent runs, tells it when
 * the agent asks for its prompt (the waiting detector's judgement), and closes it at the agent's exit.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Disposable } from '../common/lifecycle';
import { Emitter, Event } from '../common/event';
import { failure } from '../common/errors';
import { PtyInput } from './ptyInput';
import { TypedPrompt } from './typedPrompt';

/** Pause between typed text and Enter for `send`, so TUIs do not take the Enter as part of a paste. */
const SEND_ENTER_DELAY_MS = 30;

export interface AgentInputHost {
  /** The agent has ended: nothing more is typed in. */
  ended(): boolean;
  /** Its worktree setup runs, the agent not yet (said when a send comes too early). */
  settingUp(): boolean;
  /** A person's input (`data`: what was typed): activity for the record, an answer to a wait for the detector. */
  noteInput(data: string): void;
  log(message: string): void;
  /** The prompt given to `typePrompt` will not be typed in (and why): the person is to be told. */
  promptNotTyped(why: string): void;
}

/** Escape sequences: a terminal's replies to queries, focus reports, arrow keys — not a person's text. */
// eslint-disable-next-line no-control-regex
const ESCAPE_SEQUENCES = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\|[\s\S])/g;

export class AgentInput extends Disposable {
  /** The one writer of the agent's input, once it runs. */
  private writer: PtyInput | undefined;
  /** The last text sent (typed, then Enter): the next waits for it. */
  private sending: Promise<void> = Promise.resolve();
  /** The prompt this execution's argv does not carry (the start's or the retry's), until it is typed in. */
  private typedPrompt: TypedPrompt | undefined;
  /** Dropped before `typePrompt` (why). */
  private droppedEarly: string | undefined;
  /** The agent's program has exited: nothing is typed in any more. */
  private closed = false;
  private readonly _onDidDrain = this._register(new Emitter<void>());
  /** A backlog of typed input is over: connections may read their sockets again. */
  readonly onDidDrain: Event<void> = this._onDidDrain.event;

  constructor(private readonly host: AgentInputHost) {
    super();
  }

  /** The agent runs: what is typed goes to its PTY master from now on. */
  open(masterFd: number): void {
    const writer = (this.writer = this._register(new PtyInput(masterFd, (m) => this.host.log(m))));
    this._register(writer.onDidDrain(() => this._onDidDrain.fire()));
  }

  /**
   * The agent's program exited (the drain marker came) or its PTY closed: input has nowhere to go. Said
   * at once to a text sent from now on: the worker knows the end for good only once the output went
   * quiet, and meanwhile a send typed into nothing was acknowledged as sent (bug 164).
   */
  close(): void {
    this.closed = true;
    this.writer?.close();
  }

  /** Typed input waits beyond its limit (connections read no more until `onDidDrain`). */
  get isBacklogged(): boolean {
    return this.writer?.isBacklogged ?? false;
  }

  /** A person's keys (a viewer's, or a sent text's). */
  type(data: string): void {
    if (!this.writer || this.hasEnded()) return;
    // The person types into the agent first: the prompt typed later would join their text or answer what it asks next.
    if (this.typedPrompt?.isPending && data.replace(ESCAPE_SEQUENCES, '') !== '') this.typedPrompt.drop('the person typed into the agent before it asked for it');
    this.writer.write(data);
    this.host.noteInput(data);
  }

  /** The mirror's reply to a terminal query: typed in, but nobody's input. */
  reply(data: string): void {
    if (this.writer && !this.hasEnded()) this.writer.write(data);
  }

  /** Types the text, then Enter. */
  send(text: string): Promise<void> {
    // One at a time: a second text typed during the pause before the first's Enter joined its line
    // (the start's prompt and a Send Prompt to All, two `paddock send`s at once).
    const sent = this.sending.then(() => this.sendNow(text));
    this.sending = sent.catch(() => undefined);
    return sent;
  }

  /**
   * Types `text` (and Enter) when the agent asks for it (`promptAsked`, told by the waiting
   * detector) if `waitsForAsking`, else now; call once the agent runs.
   */
  typePrompt(text: string, waitsForAsking: boolean): void {
    this.typedPrompt = new TypedPrompt(text, waitsForAsking, (t) => this.send(t), (m) => this.host.log(m), (why) => this.host.promptNotTyped(why));
    if (this.droppedEarly !== undefined) this.typedPrompt.drop(this.droppedEarly);
    this.typedPrompt.started();
  }

  /** The prompt given to `typePrompt` is typed in (or being typed), or will not be (dropped). */
  get promptSettled(): boolean {
    return this.typedPrompt !== undefined && !this.typedPrompt.isPending;
  }

  /** The agent asks for the prompt: typed now; false when there is none to type (yet, or any more). */
  promptAsked(): boolean {
    return this.typedPrompt?.asked() ?? false;
  }

  /** The agent was found waiting for the person before it asked for the prompt: not typed in any more. */
  dropPrompt(why: string): void {
    if (this.typedPrompt) this.typedPrompt.drop(why);
    else this.droppedEarly = why; // the agent runs, its prompt not handed over yet
  }

  private async sendNow(text: string): Promise<void> {
    if (this.hasEnded()) throw failure('The agent has ended.');
    // Its socket is served before its setup command and its terminal: nothing to type into yet.
    if (!this.writer) throw failure(`The agent has not started yet${this.host.settingUp() ? ' (its worktree setup is running)' : ''}; send once it runs.`);
    this.type(text);
    await sleep(SEND_ENTER_DELAY_MS);
    if (this.hasEnded()) throw failure('The agent ended before Enter was typed.');
    this.type('\r');
    // Its writer found the PTY gone on writing the Enter: the text was typed, but never entered.
    if (this.hasEnded()) throw failure('The agent ended before Enter was typed.');
  }

  /**
   * Told (`close`, the host's end), or found by the writer itself: node-pty closes the master before
   * its exit is reported, and then a send was dropped by the closed writer yet acknowledged (bug 164).
   */
  private hasEnded(): boolean {
    return this.closed || this.host.ended() || this.writer?.isClosed === true;
  }
}
