/**
 * Ends a client's socket without dropping what was written to it. A destroy throws away whatever still waits in
 * Node's write queue (an `ack`, a `stopped`, behind megabytes of output a viewer has not read yet), so the destroy
 * comes only once everything is with the OS (the client reads it even after the close), or once no progress was
 * seen for `stallMs`: one that never reads must not hold the worker's memory and descriptor forever. Progress is
 * what the OS takes, and a Unix socket takes more only after the reader freed about 150 KB of its buffers
 * (measured), so a reader that takes less than that per `stallMs` (30 s: about 5 KB/s) counts as stuck and loses
 * what is still queued; a faster one gets every byte. A fixed second after `end()` lost the answers of a reader a
 * second behind.
 */
import type { Socket } from 'node:net';
import { disposableInterval, disposableTimeout, IDisposable } from '../common/lifecycle';

/** How often the write queue is looked at for progress. */
const CHECK_MS = 250;
/** Once all is with the OS: the client's own end usually closes the socket first. */
const AFTER_FLUSH_MS = 1000;

/** Calls `socket.end()`, then `destroy` as said above; the returned disposable cancels the wait (not the end). */
export function endAfterWrites(socket: Socket, stallMs: number, destroy: () => void): IDisposable {
  socket.end();
  let [queued, inFlight] = [socket.writableLength, unwritten(socket)];
  let progressAt = Date.now();
  let afterFlush: IDisposable | undefined;
  const check = disposableInterval(() => {
    const [now, nowInFlight] = [socket.writableLength, unwritten(socket)];
    if (now === 0 || socket.writableFinished) {
      check.dispose();
      afterFlush ??= disposableTimeout(destroy, AFTER_FLUSH_MS);
      return;
    }
    // The client is reading: a queued write completed, or the one under way got further.
    if (now < queued || nowInFlight < inFlight) progressAt = Date.now();
    [queued, inFlight] = [now, nowInFlight];
    if (Date.now() - progressAt >= stallMs) {
      check.dispose();
      destroy();
    }
  }, CHECK_MS);
  return {
    dispose: () => {
      check.dispose();
      afterFlush?.dispose();
    },
  };
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
