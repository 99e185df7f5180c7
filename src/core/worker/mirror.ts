/**
 * The worker's headless copy of the agent's screen. Parsing is far slower than
 * the PTY, so output is queued here (the PTY's raw bytes, uncopied: the
 * emulator decodes UTF-8 itself, across chunk boundaries) and fed to the
 * emulator one chunk at a time: the agent and the viewers' raw stream never
 * wait for it. The queue is bounded; in a flood the oldest unparsed output is
 * dropped (the screen catches up from the newest bytes, which is what a person
 * sees anyway). While output keeps streaming, parsing is deferred (until a
 * short quiet moment, at least every MAX_DEFER_MS, or at once when a snapshot
 * waits); in a flood, when more is queued than those periodic parses keep up
 * with, not even they run: most of that output would be dropped unseen, and
 * the worker's time goes to reading the PTY.
 *
 * Snapshots are taken at a precise point of the stream: `snapshotAt()` queues a
 * marker and serializes the screen once every byte before the marker has been
 * parsed and none after it, so "snapshot + output after the marker" is exact.
 */
import { Terminal } from '@xterm/headless';
import { SerializeAddon } from '@xterm/addon-serialize';
import { Disposable, toDisposable } from '../common/lifecycle';
import { Emitter, Event } from '../common/event';
import { KittyKeyboardFlags } from '../protocol/kittyKeyboard';
import { printable } from '../common/printable';
import { guardEraseAbove } from '../terminal/eraseAboveGuard';
import { replayableScreen } from '../terminal/screenReplay';
import { fitsFrame, plainScreen } from './screenBudget';

export interface ScreenSnapshot {
  /** Escape sequences that reproduce the screen, modes and cursor in an empty terminal. */
  screen: string;
  cols: number;
  rows: number;
}

/** Output is parsed once the stream has been quiet this long... */
const QUIET_MS = 10;
/** ...or at the latest this long after the previous parse started... */
const MAX_DEFER_MS = 250;
/** ...unless this many chunks are queued: a flood, parsed once it pauses (or for a snapshot). */
const FLOOD_CHUNKS = 4;

type QueueItem = { kind: 'data'; data: Uint8Array } | { kind: 'marker'; run: () => void };

export interface MirrorOptions {
  cols: number;
  rows: number;
  /** Unparsed output kept at most (bytes); older output is dropped in a flood. */
  maxBacklogBytes?: number;
  /** Largest chunk handed to the emulator at once (bytes). */
  chunkBytes?: number;
}

export class ScreenMirror extends Disposable {
  private readonly term: Terminal;
  private readonly serializer = new SerializeAddon();
  private queue: QueueItem[] = [];
  private backlogBytes = 0;
  private writing = false;
  private resting: NodeJS.Timeout | undefined;
  private lastWriteAt = 0;
  private lastParseAt = 0;
  private pendingMarkers = 0;
  private droppedBytes = 0;
  private readonly maxBacklogBytes: number;
  private readonly chunkBytes: number;
  // Modes the serializer does not restore (xterm.js #3364 and friends), tracked from the stream.
  private cursorHidden = false;
  private sgrMouse = false;
  private alternateScroll = false;
  /** DECSCUSR's parameter (0: the terminal's own shape): xterm.js keeps it, the serializer drops it. */
  private cursorShape = 0;
  private readonly keyboard = new KittyKeyboardFlags();
  /** The window title (OSC 0/2): a viewer attached before it was set shows it, so one attached later does too. */
  private title = '';

  private readonly _onDidReply = this._register(new Emitter<string>());
  /** Replies the emulator sends back to the program (device attributes, cursor position...). */
  readonly onDidReply: Event<string> = this._onDidReply.event;
  private readonly _onDidCatchUp = this._register(new Emitter<void>());
  /** Fired when every queued byte has been parsed. */
  readonly onDidCatchUp: Event<void> = this._onDidCatchUp.event;

  constructor(opts: MirrorOptions) {
    super();
    this.maxBacklogBytes = opts.maxBacklogBytes ?? 2 * 1024 * 1024;
    this.chunkBytes = opts.chunkBytes ?? 64 * 1024;
    this.term = new Terminal({ cols: opts.cols, rows: opts.rows, scrollback: 1000, allowProposedApi: true });
    this._register(
      toDisposable(() => {
        if (this.resting) clearTimeout(this.resting);
        this.term.dispose();
      }),
    );
    this.term.loadAddon(this.serializer);
    this._register(this.term.onData((d) => this._onDidReply.fire(d)));
    this._register(this.term.onTitleChange((title) => (this.title = title)));
    this._register(guardEraseAbove(this.term));
    this.trackModes();
  }

  get cols(): number {
    return this.term.cols;
  }

  get rows(): number {
    return this.term.rows;
  }

  /** Output bytes dropped unparsed because the emulator fell too far behind. */
  get dropped(): number {
    return this.droppedBytes;
  }

  /** Queues output: raw bytes (kept as they are, not copied) or text. */
  write(data: string | Uint8Array): void {
    if (data.length === 0) return;
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    this.queue.push({ kind: 'data', data: bytes });
    this.backlogBytes += bytes.length;
    this.lastWriteAt = performance.now();
    if (this.backlogBytes > this.maxBacklogBytes) this.dropOldest();
    this.pump();
  }

  resize(cols: number, rows: number): void {
    if (cols !== this.term.cols || rows !== this.term.rows) this.term.resize(cols, rows);
  }

  /** Resolves with the screen as it is after every byte written so far, and before any later byte. */
  snapshotAt(): Promise<ScreenSnapshot> {
    return new Promise((resolve) => {
      this.pendingMarkers++;
      this.queue.push({
        kind: 'marker',
        run: () => {
          this.pendingMarkers--;
          resolve(this.snapshotNow());
        },
      });
      if (this.resting) {
        clearTimeout(this.resting);
        this.resting = undefined;
      }
      this.pump();
    });
  }

  /**
   * The visible screen's lines as plain text (trailing spaces kept), as parsed so far. With
   * `joinWrapped`, rows the terminal wrapped at the right margin are one line again, as the
   * program printed it, starting in the scrollback when the top row continues a line from
   * there: what is saved must be redactable, and a secret cut at the margin is not.
   */
  visibleLines(opts: { joinWrapped?: boolean } = {}): string[] {
    const buf = this.term.buffer.active;
    const end = buf.viewportY + this.term.rows;
    let y = buf.viewportY;
    if (opts.joinWrapped) while (y > 0 && buf.getLine(y)?.isWrapped) y--;
    const lines: string[] = [];
    let continuing = false;
    for (; y < end; y++) {
      const wrapsOn = opts.joinWrapped === true && y + 1 < end && buf.getLine(y + 1)?.isWrapped === true;
      // A row that wraps on is full to the margin: its trailing spaces are part of the line.
      const text = buf.getLine(y)?.translateToString(!wrapsOn) ?? '';
      if (continuing) lines[lines.length - 1] += text;
      else lines.push(text);
      continuing = wrapsOn;
    }
    return lines;
  }

  /** The cursor's row among `visibleLines()` (without `joinWrapped`), as parsed so far. */
  cursorRow(): number {
    const buf = this.term.buffer.active;
    return buf.baseY + buf.cursorY - buf.viewportY;
  }

  private snapshotNow(): ScreenSnapshot {
    let modes = '';
    // The serializer says application keypad as DECNKM (`?66h`), which tmux and others ignore; DECKPAM is understood everywhere.
    if (this.term.modes.applicationKeypadMode) modes += '\x1b=';
    if (this.cursorShape !== 0) modes += `\x1b[${this.cursorShape} q`;
    if (this.sgrMouse) modes += '\x1b[?1006h';
    if (this.alternateScroll) modes += '\x1b[?1007h';
    modes += this.keyboard.replay();
    modes += this.cursorHidden ? '\x1b[?25l' : '\x1b[?25h';
    // Shown, not obeyed: a control character in it cannot end the sequence and act on the viewer.
    if (this.title !== '') modes += `\x1b]2;${printable(this.title)}\x07`;
    const cells = replayableScreen(this.term, this.serializer.serialize({ scrollback: 0 }));
    // Too large for a frame (bug 205): its text, rather than a frame the client refuses.
    return { screen: `${fitsFrame(cells + modes) ? cells : plainScreen(this.term)}${modes}`, cols: this.term.cols, rows: this.term.rows };
  }

  private pump(): void {
    if (this.writing || this.resting || this._store.isDisposed) return;
    while (this.queue.length > 0 && this.queue[0].kind === 'marker') {
      (this.queue.shift() as { run: () => void }).run();
    }
    if (this.queue.length === 0) {
      this._onDidCatchUp.fire();
      return;
    }
    const now = performance.now();
    const flooding = this.backlogBytes > FLOOD_CHUNKS * this.chunkBytes;
    if (this.pendingMarkers === 0 && now - this.lastWriteAt < QUIET_MS && (flooding || now - this.lastParseAt < MAX_DEFER_MS)) {
      this.rest(QUIET_MS);
      return;
    }
    this.lastParseAt = now;
    // Join consecutive data items up to one chunk; stop at the next marker.
    const parts: Uint8Array[] = [];
    let bytes = 0;
    while (this.queue.length > 0 && this.queue[0].kind === 'data' && bytes < this.chunkBytes) {
      const item = this.queue.shift() as { data: Uint8Array };
      parts.push(item.data);
      bytes += item.data.length;
    }
    this.backlogBytes -= bytes;
    const chunk = parts.length === 1 ? parts[0] : Buffer.concat(parts, bytes);
    this.writing = true;
    this.term.write(chunk, () => {
      this.writing = false;
      this.pump();
    });
  }

  private rest(ms: number): void {
    this.resting = setTimeout(() => {
      this.resting = undefined;
      this.pump();
    }, ms);
  }

  private dropOldest(): void {
    // Markers are kept (someone is waiting on them); data before them is dropped first. One pass, no splicing.
    const kept: QueueItem[] = [];
    for (const item of this.queue) {
      if (item.kind === 'data' && this.backlogBytes > this.maxBacklogBytes / 2) {
        this.backlogBytes -= item.data.length;
        this.droppedBytes += item.data.length;
      } else kept.push(item);
    }
    this.queue = kept;
  }

  private trackModes(): void {
    const decset = (set: boolean) => (params: (number | number[])[]) => {
      for (const p of params) {
        if (p === 25) this.cursorHidden = !set;
        else if (p === 1006) this.sgrMouse = set;
        else if (p === 1007) this.alternateScroll = set;
      }
      return false; // let xterm.js handle it too
    };
    const parser = this.term.parser;
    this._register(parser.registerCsiHandler({ prefix: '?', final: 'h' }, decset(true)));
    this._register(parser.registerCsiHandler({ prefix: '?', final: 'l' }, decset(false)));
    // Kitty keyboard protocol: push (CSI > flags u), pop (CSI < n u), set (CSI = flags ; mode u).
    const first = (params: (number | number[])[], fallback: number) => (typeof params[0] === 'number' ? params[0] : fallback);
    this._register(
      parser.registerCsiHandler({ prefix: '>', final: 'u' }, (params) => {
        this.keyboard.push(first(params, 0));
        return false;
      }),
    );
    this._register(
      parser.registerCsiHandler({ prefix: '<', final: 'u' }, (params) => {
        this.keyboard.pop(first(params, 1));
        return false;
      }),
    );
    this._register(
      parser.registerCsiHandler({ prefix: '=', final: 'u' }, (params) => {
        this.keyboard.set(first(params, 0), typeof params[1] === 'number' ? params[1] : 1);
        return false;
      }),
    );
    this._register(
      parser.registerCsiHandler({ intermediates: ' ', final: 'q' }, (params) => {
        this.cursorShape = first(params, 0);
        return false;
      }),
    );
    // A full reset (RIS) clears every mode.
    this._register(
      parser.registerEscHandler({ final: 'c' }, () => {
        this.cursorHidden = false;
        this.cursorShape = 0;
        this.sgrMouse = false;
        this.alternateScroll = false;
        this.keyboard.reset();
        return false;
      }),
    );
    // A soft reset (DECSTR) shows the cursor and puts back its shape in xterm.js; mouse reporting and its encoding stay.
    this._register(
      parser.registerCsiHandler({ intermediates: '!', final: 'p' }, () => {
        this.cursorHidden = false;
        this.cursorShape = 0;
        return false;
      }),
    );
  }
}
