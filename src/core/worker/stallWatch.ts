/**
 * Whether a client takes what its socket holds: a closing connection is destroyed once it takes nothing
 * (endAfterWrites.ts, its one user). A lagging viewer does not use it: it keeps its fixed 30 s (a rule
 * that judged a viewer by its pace read one taking 5 KB/s as stuck; an attempt of 2026-12-08, withdrawn).
 */
import type { Socket } from 'node:net';
import { disposableInterval, IDisposable } from '../common/lifecycle';

/** How often the write queue is looked at for progress. */
const CHECK_MS = 250;

export interface StallWatchEvents {
  /** The client took nothing for `stallMs`. */
  stalled(): void;
  /** Everything written is with the OS. */
  flushed?(): void;
}

/** Looks at `socket` every quarter second until it stalls or (with `flushed`) empties; dispose to stop looking. */
export function watchStall(socket: Socket, stallMs: number, events: StallWatchEvents): IDisposable {
  let [queued, inFlight] = [socket.writableLength, unwritten(socket)];
  let progressAt = Date.now();
  const check = disposableInterval(() => {
    const [now, nowInFlight] = [socket.writableLength, unwritten(socket)];
    if (events.flushed && (now === 0 || socket.writableFinished)) {
      check.dispose();
      events.flushed();
      return;
    }
    // The client is reading: a queued write completed, or the one under way got further.
    if (now < queued || nowInFlight < inFlight) progressAt = Date.now();
    [queued, inFlight] = [now, nowInFlight];
    if (Date.now() - progressAt >= stallMs) {
      check.dispose();
      events.stalled();
    }
  }, CHECK_MS);
  return check;
}

/**
 * Bytes of the write under way not yet taken by the OS (libuv's write queue). Node hands every queued chunk to one
 * writev once a write blocks, and `writableLength` drops only when all of it is written: measured, 3 MB queued showed
 * no change for a reader taking 64 KB every 150 ms, while this fell by ~180 KB each half second. Without the field
 * (Infinity here) progress is seen only when all that is queued was written, so a reader must take all of it within
 * `stallMs`; a slower steady one counts as stuck (endAfterWrites.test.ts, both ways).
 */
function unwritten(socket: Socket): number {
  const size = (socket as unknown as { _handle?: { writeQueueSize?: unknown } })._handle?.writeQueueSize;
  return typeof size === 'number' ? size : Number.POSITIVE_INFINITY;
}
