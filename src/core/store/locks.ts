/**
 * Short per-job critical sections with proper-lockfile. A compromised lock
 * (lost to a stale takeover) aborts the write in progress, never the process;
 * a section that ran longer than half the stale time refuses to commit, because
 * by then another process may legitimately have taken the lock.
 */
import type { LockOptions as LockfileOptions } from 'proper-lockfile';
import { failure } from '../common/errors';
import { lockfile, privateLockFs } from './lockfileModule';

export interface LockOptions {
  /** A lock whose holder stopped refreshing it for this long is taken over (proper-lockfile minimum 2 s). */
  staleMs: number;
  /** How long to keep trying before giving up. Must exceed staleMs so a dead holder's lock is eventually taken. */
  waitMs: number;
}

export const DEFAULT_LOCK_OPTIONS: LockOptions = { staleMs: 6000, waitMs: 20_000 };

/** Handed to the critical section: call `assertHeld()` synchronously right before committing. */
export interface LockGuard {
  assertHeld(): void;
}

/**
 * Callers in one process queue here first, so they wait on a promise instead of
 * polling the lock directory against each other. Do not call the store for the
 * same job from inside a critical section: that waits for itself.
 */
const queues = new Map<string, Promise<void>>();

export async function withLock<T>(lockPath: string, what: string, opts: LockOptions, fn: (guard: LockGuard) => Promise<T>): Promise<T> {
  const previous = queues.get(lockPath) ?? Promise.resolve();
  let done!: () => void;
  const turn = new Promise<void>((resolve) => (done = resolve));
  const mine = previous.then(() => turn);
  queues.set(lockPath, mine);
  await previous;
  try {
    return await withFileLock(lockPath, what, opts, fn);
  } finally {
    done();
    if (queues.get(lockPath) === mine) queues.delete(lockPath);
  }
}

async function withFileLock<T>(lockPath: string, what: string, opts: LockOptions, fn: (guard: LockGuard) => Promise<T>): Promise<T> {
  let compromised: Error | undefined;
  let release: () => Promise<void>;
  const lock = (retries: LockfileOptions['retries']) =>
    lockfile().lock(lockPath, {
      realpath: false,
      lockfilePath: lockPath,
      fs: privateLockFs(),
      stale: opts.staleMs,
      // Refresh (and so notice a takeover) several times per stale period, not just twice.
      update: Math.max(1000, opts.staleMs / 4),
      retries,
      onCompromised: (err) => {
        compromised = err;
      },
    });
  try {
    // A read-only store stays read-only while a write waits, so its lock fails at once (a stop there is not
    // held up 20 s a write). Anything else is waited for as before: a lock held by another process, and a
    // full disk, which another process's file may fill only for a moment (a worker's last write then lands).
    release = await lock(0).catch((err: unknown) => {
      if ((err as NodeJS.ErrnoException).code === 'EROFS') throw err;
      return lock(retriesFor(opts.waitMs));
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOCKED') {
      throw failure(`${what} is locked by another Paddock process; try again.`, 'LOCK_TIMEOUT');
    }
    throw err;
  }
  const acquiredAt = Date.now();
  const guard: LockGuard = {
    assertHeld() {
      if (compromised) throw failure(`Lost the lock on ${what} (${compromised.message}); the change was not written.`, 'LOCK_COMPROMISED');
      if (Date.now() - acquiredAt > opts.staleMs / 2) {
        throw failure(`Held the lock on ${what} too long to be sure it is still ours; the change was not written.`, 'LOCK_COMPROMISED');
      }
    },
  };
  try {
    return await fn(guard);
  } finally {
    if (!compromised) await release().catch(() => undefined);
  }
}

/** Exponential backoff capped at 50 ms, with as many retries as fit in `waitMs`. */
function retriesFor(waitMs: number): LockfileOptions['retries'] {
  const minTimeout = 2;
  const maxTimeout = 50;
  let total = 0;
  let retries = 0;
  for (let t = minTimeout; total < waitMs; retries++) {
    total += t;
    t = Math.min(maxTimeout, t * 1.5);
  }
  return { retries, factor: 1.5, minTimeout, maxTimeout, randomize: true };
}
