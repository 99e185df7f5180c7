/**
 * When a failed cleanup is tried again: min(60 s, 1 s·2^(n−1)) with ±10 %
 * jitter, so many agents failing together do not retry in lockstep. A persisted
 * time is never trusted beyond 1.1× the cap from now (the clock may have jumped).
 */
export const BACKOFF_BASE_MS = 1_000;
export const BACKOFF_CAP_MS = 60_000;
export const MAX_DELAY_MS = Math.round(BACKOFF_CAP_MS * 1.1);
/** From this many consecutive failures on, the agent is flagged for a person. */
export const NEEDS_ATTENTION_AFTER = 5;

export function backoffDelayMs(failures: number, random: () => number = Math.random): number {
  const exponent = Math.max(0, failures - 1);
  const base = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.min(exponent, 30));
  const jittered = base * (0.9 + 0.2 * random());
  return Math.round(Math.min(MAX_DELAY_MS, Math.max(0, jittered)));
}

/**
 * The moment an attempt is due, clamped against clock jumps: never more than `trustMs` (1.1× the
 * cap) from now; NaN-safe (unparseable → due now).
 */
export function dueTime(nextAttemptAt: string | null, now: number, trustMs: number = MAX_DELAY_MS): number {
  if (nextAttemptAt === null) return now;
  const at = Date.parse(nextAttemptAt);
  if (!Number.isFinite(at)) return now;
  return Math.min(at, now + trustMs);
}

/**
 * Remembers, per persisted `nextAttemptAt`, the due time first computed for it.
 * `dueTime` alone clamps a far-future time (a clock that jumped) to "now + cap"
 * at every look — which moves along with now, so the attempt would never come.
 * Clamped once and remembered, it is due at most 1.1× the cap after it was first seen.
 */
export class DueTimes {
  private readonly firstSeen = new Map<string, number>();

  /** How far ahead a persisted time is believed; a later one is clamped to this from when it is first seen. */
  constructor(readonly trustMs: number = MAX_DELAY_MS) {}

  due(id: string, nextAttemptAt: string | null, now: number): number {
    if (nextAttemptAt === null) return now;
    const key = `${id}\0${nextAttemptAt}`;
    let due = this.firstSeen.get(key);
    if (due === undefined) {
      // Bounded: stale keys (attempts that ran) are dropped wholesale now and then.
      if (this.firstSeen.size > 10_000) this.firstSeen.clear();
      due = dueTime(nextAttemptAt, now, this.trustMs);
      this.firstSeen.set(key, due);
    }
    return due;
  }
}
