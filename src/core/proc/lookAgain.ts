/**
 * A look at processes (a `ps` listing, a walk of /proc) tried again while it fails, for a while: a
 * `ps` failing under load (at the process limit, killed by its timeout) is usually brief, and the
 * backend's own tries of one listing span half a second at most (psListing.ts). A look that failed
 * is never an answer (bug 189); one that throws out of a stop's or an ended agent's grace leaves
 * the tree it was ending running, never sent SIGKILL (bug 206).
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** How long a look is tried again, and the pause between two tries. */
export const LOOK_AGAIN_MS = 10_000;
const LOOK_AGAIN_PAUSE_MS = 500;

/**
 * `look`'s answer, tried again while it throws; its last error once `tryForMs` would pass before the
 * next try. The deadline is judged before each try, not after: one try may take a listing's whole
 * time (a hanging `ps`, bug 192).
 */
export async function lookAgain<T>(look: () => Promise<T>, tryForMs: number = LOOK_AGAIN_MS, pauseMs: number = LOOK_AGAIN_PAUSE_MS): Promise<T> {
  const deadline = Date.now() + tryForMs;
  for (;;) {
    try {
      return await look();
    } catch (err) {
      if (Date.now() + pauseMs >= deadline) throw err;
    }
    await sleep(pauseMs);
  }
}
