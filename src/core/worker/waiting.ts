/**
 * Decides whether the agent waits for the person. Three sources, strongest first:
 * - an explicit signal from inside the agent (`paddock signal waiting|running`):
 *   holds until `signal running` or the person's input;
 * - a screen pattern (per profile) matched against the visible screen: holds
 *   while the pattern matches, ends on input. A prompt answered by the person
 *   often stays on screen (line-oriented programs), so after input only a *new*
 *   occurrence counts: more matches on screen than when the person typed;
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

export type WaitingReason = 'signal' | 'pattern' | 'idle';

export interface WaitingOptions {
  pattern: RegExp | null;
  idleMs: number | null;
  /** Reads the current visible screen (plain text, lines joined by \n). */
  readScreen: () => string;
  /** How often at most the screen is matched against the pattern. */
  patternCheckMs?: number;
  /** How long after a resize output is taken for the agent's redraw (default 1000 ms). */
  redrawMs?: number;
  /** Whether the agent is stopped (SIGSTOP) now: asked before silence counts as idle. */
  isSuspended?: () => Promise<boolean>;
}

export class WaitingDetector extends Disposable {
  private reason: WaitingReason | null = null;
  private idleTimer: NodeJS.Timeout | undefined;
  private lastActivityAt = Date.now();
  private patternTimer: NodeJS.Timeout | undefined;
  private readonly patternCheckMs: number;
  private readonly globalPattern: RegExp | null;
  /** Matches on screen when the person last typed: those are answered. */
  private answeredMatches = 0;
  /** Until then, output is taken for the redraw a resize caused. */
  private redrawUntil = 0;
  private readonly redrawMs: number;

  private readonly _onDidChange = this._register(new Emitter<WaitingReason | null>());
  /** The new reason, or null when the agent works again. */
  readonly onDidChange: Event<WaitingReason | null> = this._onDidChange.event;

  constructor(private readonly opts: WaitingOptions) {
    super();
    this.patternCheckMs = opts.patternCheckMs ?? 250;
    this.redrawMs = opts.redrawMs ?? 1000;
    const p = opts.pattern;
    this.globalPattern = p ? new RegExp(p.source, p.flags.includes('g') ? p.flags : `${p.flags}g`) : null;
    this._register({ dispose: () => this.clearTimers() });
    this.armIdle();
  }

  get current(): WaitingReason | null {
    return this.reason;
  }

  noteOutput(): void {
    if (Date.now() < this.redrawUntil) return;
    if (this.reason === 'idle') this.set(null);
    this.armIdle();
  }

  /** A viewer changed the terminal's size: the redraw that follows is not the agent working. */
  noteResize(): void {
    this.redrawUntil = Date.now() + this.redrawMs;
  }

  /** The screen changed (the mirror caught up): re-check the pattern soon. */
  noteScreenChanged(): void {
    if (!this.opts.pattern || this.patternTimer || this._store.isDisposed) return;
    this.patternTimer = setTimeout(() => {
      this.patternTimer = undefined;
      this.checkPattern();
    }, this.patternCheckMs);
    this.patternTimer.unref?.();
  }

  noteInput(): void {
    this.answeredMatches = this.countMatches();
    if (this.reason !== null) this.set(null);
    this.armIdle();
  }

  signal(state: 'waiting' | 'running'): void {
    if (state === 'waiting') this.set('signal');
    else if (this.reason !== null) this.set(null);
  }

  private checkPattern(): void {
    if (!this.globalPattern) return;
    const count = this.countMatches();
    // Answered prompts that scrolled away or were redrawn no longer count.
    if (count < this.answeredMatches) this.answeredMatches = count;
    const unanswered = count > this.answeredMatches;
    if (unanswered && this.reason === null) this.set('pattern');
    else if (!unanswered && this.reason === 'pattern') this.set(null);
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
  readScreen: () => string,
  log: (message: string) => void,
  isSuspended?: () => Promise<boolean>,
): WaitingDetector {
  const pattern = waitingPatternOf(settings.waitingPattern, log);
  return new WaitingDetector({ pattern, idleMs: settings.idleSeconds ? settings.idleSeconds * 1000 : null, readScreen, isSuspended });
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
