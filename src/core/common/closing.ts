/**
 * A process about to go away (a window closing or reloading) must not leave
 * behind what it runs in sessions of their own — a check, a worktree's
 * teardown: no signal of its end reaches them, so they would run on with
 * nobody to record their result. `Closing` is the signal such work listens to,
 * and what the process waits on before it exits: each piece of work it holds
 * ends its commands (TERM, the grace, KILL) and records how it ended.
 */
export class Closing {
  private readonly controller = new AbortController();
  private readonly held = new Set<Promise<unknown>>();

  /** Aborts when the process starts closing. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get isClosing(): boolean {
    return this.controller.signal.aborted;
  }

  /**
   * `work`, given `abort` joined to this signal (what it runs in sessions of its own ends when either
   * fires), and waited for by `close`.
   */
  run<T>(abort: AbortSignal | undefined, work: (abort: AbortSignal) => Promise<T>): Promise<T> {
    return this.hold(work(eitherAbort(abort, this.signal)!));
  }

  private hold<T>(work: Promise<T>): Promise<T> {
    this.held.add(work);
    void work.then(
      () => this.held.delete(work),
      () => this.held.delete(work),
    );
    return work;
  }

  /** Aborts `signal` without waiting: the work ends its commands with their usual grace. */
  abort(): void {
    this.controller.abort();
  }

  /**
   * Aborts `signal`; resolves once the held work has ended, or after `boundMs` (whatever is left
   * then is the next reader's to judge). What the work ends gets a grace that fits in the bound.
   */
  async close(boundMs: number): Promise<void> {
    this.controller.abort(new ClosingReason(Math.floor(boundMs / 3)));
    let bound: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (bound = setTimeout(resolve, boundMs)));
    try {
      await Promise.race([Promise.allSettled([...this.held]), late]);
    } finally {
      clearTimeout(bound);
    }
  }
}

/** One signal that aborts when any given one does; undefined when none is given. */
export function eitherAbort(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const given = signals.filter((s): s is AbortSignal => s !== undefined);
  return given.length <= 1 ? given[0] : AbortSignal.any(given);
}

/** The reason a closing process aborts with: the grace between TERM and KILL it has time for. */
export class ClosingReason extends Error {
  constructor(readonly graceMs: number) {
    super('this process is closing');
  }
}

/** The grace to end a command with once `signal` aborted: `graceMs`, or less when the abort asks for less. */
export function graceOnAbort(signal: AbortSignal | undefined, graceMs: number): number {
  const reason: unknown = signal?.reason;
  return reason instanceof ClosingReason ? Math.min(graceMs, reason.graceMs) : graceMs;
}
