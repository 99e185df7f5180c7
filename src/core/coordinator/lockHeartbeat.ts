/**
 * A held lock's heartbeat: its holder touches its owner file now and then while it holds it. A holder
 * in a pid namespace that cannot be seen from here (one beside this one: another container) cannot be
 * judged by its pid, and taken as alive for good it kept a lock no one could take again once its
 * namespace ended. So such a holder counts as alive while its heartbeat is fresh, and as gone once it
 * has missed several: never stuck. A holder that can be seen is judged by its pid as ever; one
 * suspended (SIGSTOP) beats no more, so from out of sight its lock is taken after the bound.
 */
import { promises as fs } from 'node:fs';

/** How often a holder touches its owner file. */
export const HEARTBEAT_MS = 15_000;
/** How long an unseen holder's heartbeat may be silent before it is judged gone: several beats, a busy event loop's delays. */
export const UNSEEN_HOLDER_STALE_MS = 90_000;

/** Touches `ownerFile` every HEARTBEAT_MS until stopped (never keeping the process alive for it). */
export function startHeartbeat(ownerFile: string): () => void {
  const timer = setInterval(() => {
    const now = new Date();
    fs.utimes(ownerFile, now, now).catch(() => undefined); // gone: released or taken over meanwhile
  }, HEARTBEAT_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** Whether an unseen holder's heartbeat stopped: its owner file untouched for UNSEEN_HOLDER_STALE_MS (or gone). */
export async function heartbeatStopped(ownerFile: string): Promise<boolean> {
  try {
    return Date.now() - (await fs.stat(ownerFile)).mtimeMs >= UNSEEN_HOLDER_STALE_MS;
  } catch {
    return true;
  }
}
