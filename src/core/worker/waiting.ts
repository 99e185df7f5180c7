/**
 * Decides whether the agent waits for the person. Three sources, strongest first:
 * - an explicit signal from inside the agent (`paddock signal waiting|running`):
 *   holds until `signal running` or the person's input;
 * - a screen pattern (per profile) matched against the visible screen: holds
 *   while the pattern matches, ends on input;
 * - idleness: no output or input for the profile's idle time; ends on output or input.
 */
import { Disposable, IDisposable } from '../common/lifecycle';
import { Emitter, Event } from '../common/event';

export type WaitingReason = 'signal' | 'pattern' | 'idle';

export interface WaitingOptions {
  pattern: RegExp | null;
  idleMs: number | null;
  /** Reads the current visible screen (plain text, lines joined by \n). */
  readScreen: () => string;
  /** How often at most the screen is matched against the pattern. */
  patternCheckMs?: number;
}

export class WaitingDetector extends Disposable {
  private reason: WaitingReason | null = null;
  private idleTimer: IDisposable | undefined;
  private patternTimer: NodeJS.Timeout | undefined;
  private readonly patternCheckMs: number;

  private readonly _onDidChange = this._register(new Emitter<WaitingReason | null>());
  /** The new reason, or null when the agent works again. */
  readonly onDidChange: Event<WaitingReason | null> = this._onDidChange.event;

  constructor(private readonly opts: WaitingOptions) {
    super();
    this.patternCheckMs = opts.patternCheckMs ?? 250;
    this._register({ dispose: () => this.clearTimers() });
    this.armIdle();
  }

  get current(): WaitingReason | null {
    return this.reason;
  }

  noteOutput(): void {
    if (this.reason === 'idle') this.set(null);
    this.armIdle();
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
    if (this.reason !== null) this.set(null);
    this.armIdle();
  }

  signal(state: 'waiting' | 'running'): void {
    if (state === 'waiting') this.set('signal');
    else if (this.reason !== null) this.set(null);
  }

  private checkPattern(): void {
    const pattern = this.opts.pattern;
    if (!pattern) return;
    pattern.lastIndex = 0;
    const matches = pattern.test(this.opts.readScreen());
    if (matches && this.reason === null) this.set('pattern');
    else if (!matches && this.reason === 'pattern') this.set(null);
  }

  private armIdle(): void {
    this.idleTimer?.dispose();
    this.idleTimer = undefined;
    const ms = this.opts.idleMs;
    if (!ms || this._store.isDisposed) return;
    const handle = setTimeout(() => {
      if (this.reason === null) this.set('idle');
    }, ms);
    handle.unref?.();
    this.idleTimer = { dispose: () => clearTimeout(handle) };
  }

  private set(reason: WaitingReason | null): void {
    if (reason === this.reason) return;
    this.reason = reason;
    this._onDidChange.fire(reason);
  }

  private clearTimers(): void {
    this.idleTimer?.dispose();
    if (this.patternTimer) clearTimeout(this.patternTimer);
  }
}
