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
import { disposableTimeout, IDisposable } from '../common/lifecycle';
import { watchStall } from './stallWatch';

/** Once all is with the OS: the client's own end usually closes the socket first. */
const AFTER_FLUSH_MS = 1000;

/** Calls `socket.end()`, then `destroy` as said above; the returned disposable cancels the wait (not the end). */
export function endAfterWrites(socket: Socket, stallMs: number, destroy: () => void): IDisposable {
  socket.end();
  let afterFlush: IDisposable | undefined;
  const check = watchStall(socket, stallMs, { stalled: destroy, flushed: () => (afterFlush ??= disposableTimeout(destroy, AFTER_FLUSH_MS)) });
  return {
    dispose: () => {
      check.dispose();
      afterFlush?.dispose();
    },
  };
}
