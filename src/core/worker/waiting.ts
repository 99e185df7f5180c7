/**
 * Decides whether the agent waits for the person. Three sources, strongest first:
 * - an explicit signal from inside the agent (`paddock signal waiting|running`):
 *   holds until `signal running` or the person's input;
 * - a screen pattern (per profile) matched against the visible screen: holds
 *   while the pattern matches, ends on input. A prompt answered by the person
 *   often stays on screen (line-oriented programs), so after input only a *new*
 *   occurrence counts: more matches on screen than when the person typed, or, once the agent
 *   wrote more than the terminal's echo of the answer, a match on the cursor's row (a prompt
 *   asked again at the same spot, as TUIs redraw theirs, looks the same as the answered one)
 *   when the agent's output went quiet there;
 *   While a prompt waits to be typed at the agent's first asking (typedPrompt.ts), that asking is
 *   answered in place of the wait: the agent asks where its cursor waits (the same judgement as a
 *   prompt asked again: the pattern on the cursor's line) once that line has settled (unchanged for
 *   the check interval: a clock or spinner drawn elsewhere does not unsettle it); the same words
 *   elsewhere on screen (a restored history, a file shown) do not take the prompt, and the typed
 *   prompt makes every match then on screen answered. A wait the rule reads meanwhile is held back
 *   only for a grace (`firstAskingGraceMs`): many questions are not asked at the cursor (a question
 *   then a newline, a clock parked below it, a spinner on its line), and a wait held back for good
 *   would leave the agent waiting with nobody told. After the grace it is raised as without a
 *   prompt to type, and the prompt is no longer typed by itself (`FirstAsking.drop`): the person,
 *   told, answers what the agent asks, and whatever it asks next is theirs to answer too;
 * - idleness: no output or input for the profile's idle time; ends on output or input. A
 *   stopped agent (SIGSTOP) is silent too, but waits for nobody: while it is stopped, silence
 *   is not taken for waiting (it stays `running`, shown as suspended).
 *
 * A viewer's resize makes the agent redraw its whole screen: that output is
 * the terminal's doing, not the agent's, so for a moment after a resize output
 * neither ends `idle` nor counts as activity (input from a person still does).
 */
import { Disposable } from '../common/lifecycle';
import { Emitter, Event } from '../common/event';
import { describeError } from '../common/errors';

/** What a terminal echoes beside the typed characters themselves: Enter as CR LF, erase as BS SP BS. */
const ECHOED_CONTROLS = '\r\n\b ';

export type WaitingReason = 'signal' | 'pattern' | 'idle';

export interface WaitingOptions {
  pattern: RegExp | null;
  idleMs: number | null;
  /** Reads the current visible screen (plain text, lines joined by \n). */
  readScreen: () => string;
  /** The cursor's row among `readScreen`'s lines: where a prompt waits for its answer. */
  readCursorRow?: () => number;
  /** How often at most the screen is matched against the pattern. */
  patternCheckMs?: number;
  /** How long after a resize output is taken for the agent's redraw (default 1000 ms). */
  redrawMs?: number;
  /** Whether the agent is stopped (SIGSTOP) now: asked before silence counts as idle. */
  isSuspended?: () => Promise<boolean>;
  /** A prompt to type at the agent's first asking (typedPrompt.ts), answered in place of that wait. */
  firstAsking?: FirstAsking;
  /** How long a wait the rule reads is held back for the first asking at the cursor (default 5000 ms). */
  firstAskingGraceMs?: number;
  log?: (message: string) => void;
}

/** The prompt typed at the agent's first asking (see the class). */
export interface FirstAsking {
  /** It still waits to be typed. */
  pending(): boolean;
  /** Types it now; false when it cannot be yet (the agent does not run yet). */
  answer(): boolean;
  /** The agent waits for the person before it asked for the prompt: it is not typed any more. */
  drop(): void;
}

export class WaitingDetector extends Disposable {
  private reason: WaitingReason | null = null;
  private idleTimer: NodeJS.Timeout | undefined;
  private lastActivityAt = Date.now();
  private patternTimer: NodeJS.Timeout | undefined;
  private patternDueAt = 0;
  private readonly patternCheckMs: number;
  private readonly globalPattern: RegExp | null;
  /** Matches on screen when the person last typed: those are answered. */
  private answeredMatches = 0;
  /** What the person typed last: the terminal echoes it back, and that echo is not the agent answering. */
  private lastTyped = '';
  /** The agent wrote more than the echo since the person typed: a prompt at the cursor is a new one. */
  private respondedSinceInput = false;
  private lastOutputAt = 0;
  /** The cursor's line when the person typed: the prompt they answered, if one was there. */
  private answeredLine = '';
  /** Until then, output is taken for the redraw a resize caused. */
  private redrawUntil = 0;
  private readonly redrawMs: number;
  /** While a prompt waits for the first asking: the cursor's row and line, and since when they are as they are. */
  private settling: { row: number; line: string; since: number } | undefined;
  private readonly firstAskingGraceMs: number;
  /** While a prompt waits for the first asking: since when the rule reads a wait it holds back. */
  private heldSince: number | undefined;

  private readonly _onDidChange = this._register(new Emitter<WaitingReason | null>());
  /** The new reason, or null when the agent works again. */
  readonly onDidChange: Event<WaitingReason | null> = this._onDidChange.event;

  constructor(private readonly opts: WaitingOptions) {
    super();
    this.patternCheckMs = opts.patternCheckMs ?? 250;
    this.redrawMs = opts.redrawMs ?? 1000;
    this.firstAskingGraceMs = opts.firstAskingGraceMs ?? 5000;
    const p = opts.pattern;
    this.globalPattern = p ? new RegExp(p.source, p.flags.includes('g') ? p.flags : `${p.flags}g`) : null;
    this._register({ dispose: () => this.clearTimers() });
    this.armIdle();
  }

  get current(): WaitingReason | null {
    return this.reason;
  }

  /** The agent's output (`bytes`: what it wrote, told apart from the echo of the person's input). */
  noteOutput(bytes?: Buffer | string): void {
    if (Date.now() < this.redrawUntil) return;
    this.lastOutputAt = Date.now();
    // Told apart only while it matters (a pattern to judge, no answer seen yet): this runs for every chunk the agent writes.
    if (!this.respondedSinceInput && (bytes === undefined || !this.opts.pattern || !this.isEchoOfInput(bytes))) this.respondedSinceInput = true;
    if (this.reason === 'idle') this.set(null);
    this.armIdle();
  }

  /** A viewer changed the terminal's size: the redraw that follows is not the agent working. */
  noteResize(): void {
    this.redrawUntil = Date.now() + this.redrawMs;
  }

  /** The screen changed (the mirror caught up): re-check the pattern soon. */
  noteScreenChanged(): void {
    if (this.globalPattern && this.opts.firstAsking?.pending()) this.noteCursorLine();
    this.checkPatternIn(this.patternCheckMs);
  }

  /** One timer at a time, the earliest asked for: a held wait's grace must not put off the look at a screen change. */
  private checkPatternIn(ms: number): void {
    if (!this.opts.pattern || this._store.isDisposed) return;
    if (this.patternTimer && this.patternDueAt <= Date.now() + ms) return;
    clearTimeout(this.patternTimer);
    this.patternDueAt = Date.now() + ms;
    this.patternTimer = setTimeout(() => {
      this.patternTimer = undefined;
      this.checkPattern();
    }, ms);
    this.patternTimer.unref?.();
  }

  /** The person's input (`data`: what they typed). */
  noteInput(data = ''): void {
    this.answeredMatches = this.countMatches();
    this.lastTyped = data;
    this.answeredLine = this.opts.pattern ? this.cursorLine() : '';
    this.respondedSinceInput = false;
    this.heldSince = undefined; // answered: a wait read after it gets its own grace
    if (this.reason !== null) this.set(null);
    this.armIdle();
  }

  signal(state: 'waiting' | 'running'): void {
    if (state === 'waiting') this.set('signal');
    else if (this.reason !== null) this.set(null);
  }

  private checkPattern(): void {
    if (!this.globalPattern) return;
    const first = this.opts.firstAsking?.pending() ? this.opts.firstAsking : undefined;
    if (first && this.answerFirstAsking(first)) return;
    const unanswered = this.unansweredMatch();
    if (unanswered === undefined) return; // a re-check is due once the agent went quiet
    if (first && this.heldForFirstAsking(first, unanswered)) return;
    if (unanswered && this.reason === null) this.set('pattern');
    else if (!unanswered && this.reason === 'pattern') this.set(null);
  }

  /** The rule: a match the person did not answer; undefined while it waits for the agent to go quiet there. */
  private unansweredMatch(): boolean | undefined {
    const count = this.countMatches();
    // Answered prompts that scrolled away or were redrawn no longer count.
    if (count < this.answeredMatches) this.answeredMatches = count;
    if (count > this.answeredMatches) return true;
    if (!this.respondedSinceInput || !this.askedAtCursor(this.cursorLine())) return false;
    // Asked again where the cursor waits, once the agent went quiet there: a spinner drawn after an answered prompt is work.
    const quietFor = Date.now() - this.lastOutputAt;
    if (quietFor >= this.patternCheckMs) return true;
    this.checkPatternIn(this.patternCheckMs - quietFor);
    return undefined;
  }

  /**
   * The agent asks for the waiting prompt's text once its cursor's line shows the pattern and has
   * settled (see the class); true when it was typed now. Typed, it is the agent's input.
   */
  private answerFirstAsking(first: FirstAsking): boolean {
    const { line, since } = this.noteCursorLine();
    if (!this.askedAtCursor(line)) return false;
    const settledFor = Date.now() - since;
    if (settledFor < this.patternCheckMs) {
      this.checkPatternIn(this.patternCheckMs - settledFor);
      return false;
    }
    if (!first.answer()) return false;
    this.noteInput();
    return true;
  }

  /**
   * A wait the rule reads while the prompt waits for the first asking is held back for the grace
   * (the agent may be about to ask at its cursor), then raised, the prompt dropped: never held for
   * good, never typed into what the agent asks after the person answered (see the class).
   */
  private heldForFirstAsking(first: FirstAsking, unanswered: boolean): boolean {
    if (!unanswered) this.heldSince = undefined;
    if (!unanswered || this.reason !== null) return false;
    const now = Date.now();
    this.heldSince ??= now;
    const left = this.firstAskingGraceMs - (now - this.heldSince);
    if (left > 0) {
      this.checkPatternIn(left);
      return true;
    }
    this.opts.log?.(`the agent waits (its waiting pattern) but has not asked at its cursor for ${this.firstAskingGraceMs} ms: waiting`);
    first.drop();
    return false;
  }

  /** The cursor's row and line now, and since when they are unchanged (looked at on every screen change). */
  private noteCursorLine(): { row: number; line: string; since: number } {
    const row = this.opts.readCursorRow?.() ?? -1;
    const line = this.cursorLine(row);
    const last = this.settling;
    if (last && last.row === row && last.line === line) return last;
    return (this.settling = { row, line, since: Date.now() });
  }

  /** The line the cursor is on, as plain text ('' when unknown). */
  private cursorLine(row = this.opts.readCursorRow?.()): string {
    return row === undefined ? '' : (this.opts.readScreen().split('\n')[row] ?? '');
  }

  /**
   * The cursor's line shows the pattern, and not as the answered line with more after it (the
   * echo of the answer, a spinner, an "ok"): a prompt asked (again) where the cursor waits.
   */
  private askedAtCursor(cursorLine: string): boolean {
    const line = cursorLine.trimEnd();
    if (!this.opts.pattern || line === '') return false;
    this.opts.pattern.lastIndex = 0;
    if (!this.opts.pattern.test(line)) return false;
    const answered = this.answeredLine.trimEnd();
    return !(answered !== '' && line.length > answered.length && line.startsWith(answered));
  }

  /**
   * Output made only of what the person typed (and the line ends, backspaces and blanks a
   * terminal echoes for it) is the terminal's echo of the answer, not the agent answering.
   */
  private isEchoOfInput(bytes: Buffer | string): boolean {
    const text = typeof bytes === 'string' ? bytes : bytes.toString('utf8');
    for (const ch of text) if (!this.lastTyped.includes(ch) && !ECHOED_CONTROLS.includes(ch)) return false;
    return true;
  }

  private countMatches(): number {
    if (!this.globalPattern) return 0;
    let n = 0;
    for (const _match of this.opts.readScreen().matchAll(this.globalPattern)) {
      if (++n >= 1000) break; // a pattern matching everywhere (e.g. empty) needs no exact count
    }
    return n;
  }

  /** One timer at a time: output in a flood only moves `lastActivityAt`; the timer re-arms itself for the rest. */
  private armIdle(): void {
    this.lastActivityAt = Date.now();
    const ms = this.opts.idleMs;
    if (!ms || this.idleTimer || this._store.isDisposed) return;
    const check = () => {
      const quietFor = Date.now() - this.lastActivityAt;
      if (quietFor < ms) {
        this.idleTimer = setTimeout(check, ms - quietFor);
        this.idleTimer.unref?.();
        return;
      }
      this.idleTimer = undefined;
      if (this.reason !== null) return;
      if (!this.opts.isSuspended) return this.set('idle');
      void this.opts.isSuspended().then(
        (suspended) => this.idleUnlessSuspended(suspended, ms, check),
        () => this.idleUnlessSuspended(false, ms, check),
      );
    };
    this.idleTimer = setTimeout(check, ms);
    this.idleTimer.unref?.();
  }

  /** After the question: still quiet and not stopped is idle; a stopped agent is asked again an idle time later. */
  private idleUnlessSuspended(suspended: boolean, ms: number, check: () => void): void {
    if (this._store.isDisposed || this.reason !== null || this.idleTimer || Date.now() - this.lastActivityAt < ms) return;
    if (!suspended) return this.set('idle');
    this.idleTimer = setTimeout(check, ms);
    this.idleTimer.unref?.();
  }

  private set(reason: WaitingReason | null): void {
    if (reason === this.reason) return;
    this.reason = reason;
    this._onDidChange.fire(reason);
  }

  private clearTimers(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (this.patternTimer) clearTimeout(this.patternTimer);
  }
}

/** A detector from the job's settings: its profile's waiting pattern (an invalid one is logged and ignored) and idle time. */
export function waitingDetectorFor(
  settings: { waitingPattern?: string | null; idleSeconds?: number | null },
  screen: Pick<WaitingOptions, 'readScreen' | 'readCursorRow' | 'firstAsking'>,
  log: (message: string) => void,
  isSuspended?: () => Promise<boolean>,
): WaitingDetector {
  const pattern = waitingPatternOf(settings.waitingPattern, log);
  return new WaitingDetector({ pattern, idleMs: settings.idleSeconds ? settings.idleSeconds * 1000 : null, ...screen, isSuspended, log });
}

/** The profile's waiting pattern, matched per line; null when there is none or it is invalid (logged). */
export function waitingPatternOf(source: string | null | undefined, log: (message: string) => void): RegExp | null {
  if (!source) return null;
  try {
    return new RegExp(source, 'm');
  } catch (err) {
    log(`ignoring the waiting pattern: ${describeError(err)}`);
    return null;
  }
}
