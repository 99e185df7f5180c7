/**
 * `paddock attach ID [--read-only]`: the agent's live terminal here; Ctrl-\ detaches and the agent keeps running.
 *
 * Like tmux, the session runs on the outer terminal's alternate screen: detaching
 * (or the agent ending) leaves it, so the person's shell screen comes back as it
 * was, and only then is the closing sentence printed.
 */
import { StringDecoder } from 'node:string_decoder';
import { failure, usageError } from '../../core/common/errors';
import { attachBlocker } from '../../core/operations/rules';
import { WorkerClient } from '../../core/protocol/client';
import { FRESH_SCREEN_MODES, RESET_TERMINAL_MODES } from '../../core/protocol/terminalModes';
import { viewerSize } from '../../core/protocol/viewerBounds';
import { isTerminalState } from '../../core/store/schema';
import type { CliContext } from '../command';
import { defineCommand } from '../support/args';
import { findDetachKey } from '../support/detachKey';
import { AgentScreenSwitches } from '../support/outerScreen';
import { loadScreenText } from '../support/screenText';
import { openStore } from '../support/store';
import { watchReaderGone } from '../support/readerGone';
import { unsentInputWords } from '../../core/protocol/unsentInput';

export { DETACH_BYTE } from '../support/detachKey';

/**
 * The session's own screen, and the outer terminal's title saved on its title
 * stack (XTWINOPS 22/23: xterm, VTE, kitty, tmux, VS Code): agents set titles
 * (OSC 0/2) that would otherwise stay on the person's terminal after detaching.
 */
const ENTER_SESSION = '\x1b[?1049h\x1b[22;0t';
const LEAVE_SESSION = `${RESET_TERMINAL_MODES}\x1b[23;0t`;
const CLEAR = '\x1b[H\x1b[2J';
/** Every screen from the worker is drawn over what the agent's output left: from a fresh terminal's modes. */
const NEW_SCREEN = FRESH_SCREEN_MODES + CLEAR;

type Ending =
  | { kind: 'detached' }
  | { kind: 'exited'; code: number | null; signal: string | null; state: string }
  | { kind: 'lost'; reason?: string; unsentInput?: number }
  | { kind: 'readerGone' }
  | { kind: 'signalled'; signal: NodeJS.Signals };

/**
 * Signals that end `paddock attach` itself (its terminal closed, `kill`, a
 * supervisor): it detaches and gives the person's terminal back as on the
 * detach key. Node's default for them would exit at once, leaving the outer
 * terminal on the alternate screen with the agent's mouse reporting, hidden
 * cursor and keyboard modes still on.
 */
const ENDING_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGHUP', 'SIGINT'];

export const attachCommand = defineCommand({
  name: 'attach',
  usage: 'paddock attach ID [--read-only]',
  summary: "Show the agent's live terminal here; Ctrl-\\ detaches and the agent keeps running.",
  options: { 'read-only': { type: 'boolean' } },
  positionals: ['ID'],
  async run({ values, positionals: [id] }, ctx) {
    const readOnly = values['read-only'] === true;
    const store = openStore(ctx);
    const job = await store.read(id);
    if (isTerminalState(job.lifecycle.state)) throw failure(endedSentence(id, job.lifecycle.state));
    // Queued (no worker yet) or stopping: say so now, not "cannot reach the worker" after the connect timeout.
    const blocked = attachBlocker(job);
    if (blocked) throw failure(blocked);
    // A writable viewer sizes the agent's terminal to its own; without a terminal it has no size, and
    // the 80×24 it would claim garbles the person's real viewer ("sized for another viewer").
    if (!readOnly && ctx.io.stdout.isTTY !== true) throw usageError(notATerminalSentence(id));
    const client = await WorkerClient.connect(store, id);
    try {
      const ending = await view(client, ctx, readOnly);
      return report(ending, id, ctx);
    } finally {
      client.dispose();
    }
  },
});

function notATerminalSentence(id: string): string {
  return `paddock attach ${id} sizes the agent's terminal to the one it runs in, and its output here is not a terminal; watch with: paddock attach ${id} --read-only, or see paddock screen ${id} or paddock logs ${id} --follow.`;
}

function endedSentence(id: string, state: string): string {
  return `Agent ${id} has ended (${state}), so there is nothing to attach to; see its last screen with: paddock screen ${id}, and its output with: paddock logs ${id}.`;
}

async function view(client: WorkerClient, ctx: CliContext, readOnly: boolean): Promise<Ending> {
  const { stdin, stdout } = ctx.io;
  const size = () => viewerSize(stdout.columns ?? 80, stdout.rows ?? 24);
  const ready = await client.attach({ ...size(), readOnly });
  const switches = new AgentScreenSwitches();
  const sizeNotice = new SizeNotice(size);
  /**
   * A screen from the worker, for an agent of `cols`×`rows`, and the size notice over it. Auto-wrap
   * goes off before the screen while the agent is wider (after the fresh modes turned it on): its
   * rows longer than this terminal are cropped, not wrapped onto the rows below and scrolled.
   */
  const newScreen = (fresh: { screen: string; cols: number; rows: number }) => {
    const wrapOff = sizeNotice.beforeScreen(fresh.cols, fresh.rows);
    switches.cropped = sizeNotice.cropped;
    const drawn = NEW_SCREEN + wrapOff + switches.snapshot(fresh.screen, fresh.cols);
    return drawn + sizeNotice.afterScreen(drawn);
  };
  stdout.write(ENTER_SESSION + newScreen(ready));
  if (ready.exit) {
    stdout.write(LEAVE_SESSION);
    return { kind: 'exited', code: ready.exit.code, signal: ready.exit.signal, state: ready.state };
  }

  const raw = stdin.isTTY && typeof stdin.setRawMode === 'function';
  const decoder = new StringDecoder('utf8');
  return new Promise<Ending>((resolve) => {
    let ended = false;
    const subscriptions = [
      client.onDidOutput((data) => {
        const { text, leftAlternate, softReset } = switches.filter(data);
        stdout.write(text);
        // The agent is back on its main screen, which the outer terminal never showed, or soft-reset
        // its margins and saved cursor where its cursor is, which only the worker knows: ask for it.
        if (leftAlternate || softReset) client.refresh();
      }),
      client.onDidReady((fresh) => stdout.write(newScreen(fresh))),
      client.onDidResize((s) => {
        stdout.write(sizeNotice.afterResize(s.cols, s.rows));
        switches.cropped = sizeNotice.cropped;
        redrawFromMirror();
      }),
      client.onDidExit((e) => finish({ kind: 'exited', code: e.code, signal: e.signal, state: e.state })),
      client.onDidClose((e) => finish({ kind: 'lost', reason: e.reason, unsentInput: e.unsentInput })),
    ];
    const onData = (chunk: Buffer | string) => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      const key = findDetachKey(buf);
      const before = key ? buf.subarray(0, key.at) : buf;
      if (before.length > 0 && !readOnly) client.input(decoder.write(before));
      if (key) {
        client.detach();
        finish({ kind: 'detached' });
      }
    };
    /**
     * The outer terminal is on its alternate screen, which has no scrollback: grown, it shows
     * blank rows where tmux brings back the agent's earlier lines, and a program that redraws only
     * its prompt leaves them blank. The worker's mirror has reflowed the agent's screen, history
     * included: draw that, then the agent's own redraw follows.
     */
    const redrawFromMirror = () => client.refresh();
    const onResize = () => {
      const s = size();
      // A read-only viewer never sizes the agent; the agent may also have this size already.
      if (!readOnly) client.resize(s.cols, s.rows);
      redrawFromMirror();
    };
    const onEnd = () => {
      client.detach();
      finish({ kind: 'detached' });
    };
    const onSignal = (signal: NodeJS.Signals) => {
      client.detach();
      finish({ kind: 'signalled', signal });
    };
    function finish(ending: Ending): void {
      if (ended) return;
      ended = true;
      for (const s of subscriptions) s.dispose();
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      process.off('SIGWINCH', onResize);
      // Taken off after the signal's other listeners have run: proper-lockfile's exit hook, loaded once
      // a read has written the record, re-raises a signal it finds no other listener for (reliability 33).
      setImmediate(() => {
        for (const signal of ENDING_SIGNALS) process.off(signal, onSignal);
      });
      if (raw) stdin.setRawMode?.(false);
      stdin.pause();
      stdout.write(LEAVE_SESSION);
      resolve(ending);
    }
    if (raw) stdin.setRawMode?.(true);
    stdin.on('data', onData);
    stdin.on('end', onEnd);
    stdin.resume();
    process.on('SIGWINCH', onResize);
    for (const signal of ENDING_SIGNALS) process.on(signal, onSignal);
    // A read-only viewer piped into another program (`attach --read-only | grep -m1 done`) detaches when
    // that one stops reading, not at the agent's next output, which may never come.
    const readerWatch = watchReaderGone(stdout, () => {
      client.detach();
      finish({ kind: 'readerGone' });
    });
    if (ended) readerWatch.dispose();
    else subscriptions.push(readerWatch);
  });
}

/**
 * Size policy (docs/protocol.md): the writable viewer that typed or resized last
 * sets the agent's size. A viewer of another size is told so in a dim line
 * under the agent's screen, and its terminal stops wrapping at the right margin
 * while the agent is wider: rows stay rows (cropped) instead of garbling until
 * someone types here (which makes this viewer the one that decides again).
 */
class SizeNotice {
  private shown = false;
  /** Whether this terminal's auto-wrap is off for an agent wider than it (the agent's output must not turn it on: `AgentScreenSwitches.cropped`). */
  cropped = false;
  /** The agent's size and this terminal's, as of the screen drawn last. */
  private sizes = { cols: 0, rows: 0, own: { cols: 0, rows: 0 } };

  constructor(private readonly ownSize: () => { cols: number; rows: number }) {}

  /**
   * What to write before a screen of an agent of `cols`×`rows`, drawn from a fresh terminal's
   * modes: auto-wrap off while the agent is wider (bug 131: turned off only after the screen, its
   * long rows wrapped and scrolled the screen up).
   */
  beforeScreen(cols: number, rows: number): string {
    const own = this.ownSize();
    this.sizes = { cols, rows, own };
    this.shown = cols !== own.cols || rows !== own.rows;
    this.cropped = this.shown && cols > own.cols;
    return this.cropped ? '\x1b[?7l' : '';
  }

  /**
   * What to write after the screen `drawn` (written from a fresh terminal's state, `beforeScreen`
   * included). The line is drawn without saving the cursor (`lineOverScreen`): the slot is the
   * agent's, and the screen has just put back the cursor the agent saved.
   */
  afterScreen(drawn: string): string {
    if (!this.shown) return '';
    const { cols, rows, own } = this.sizes;
    const line = `(sized for another viewer: ${cols}×${rows}; type here to size it for this one)`.slice(0, own.cols);
    return loadScreenText().lineOverScreen(drawn, own.cols, own.rows, line);
  }

  /**
   * What to write when the agent was resized to `cols`×`rows` and is redrawing: what this terminal
   * shows of the old size is stale. The line comes with the fresh screen asked for next.
   */
  afterResize(cols: number, rows: number): string {
    const own = this.ownSize();
    const differs = cols !== own.cols || rows !== own.rows;
    const wasShown = this.shown;
    this.shown = differs;
    this.cropped = differs && cols > own.cols;
    if (!differs && !wasShown) return '';
    return `${CLEAR}${this.cropped ? '\x1b[?7l' : '\x1b[?7h'}`;
  }
}

function report(ending: Ending, id: string, ctx: CliContext): number {
  const out = ctx.io.stderr;
  switch (ending.kind) {
    case 'detached':
      out.write(`Detached from agent ${id}; it keeps running. Re-attach with: paddock attach ${id}\n`);
      return 0;
    case 'exited': {
      const how = ending.signal ? `was killed by ${ending.signal}` : `exited with code ${ending.code ?? 'unknown'}`;
      out.write(`Agent ${id} ${how} (${ending.state}). Its last screen: paddock screen ${id}\n`);
      return 0;
    }
    case 'readerGone':
      return 0; // as a write into the closed pipe ends the CLI: nobody is left to tell
    case 'lost':
      // A paste cut short: its end never reached the agent (bug 204).
      throw failure(`Lost the connection to agent ${id}'s worker${ending.reason ? `: ${ending.reason}` : ''}.${ending.unsentInput ? ` ${unsentInputWords(ending.unsentInput).replace(/^t/, 'T')}` : ''}`);
    case 'signalled':
      throw failure(`Detached from agent ${id} on ${ending.signal}; it keeps running. Re-attach with: paddock attach ${id}`);
  }
}

export default attachCommand;
