/**
 * The long-held execution lock a worker keeps for its life (`execution.lock`,
 * separate from the short record lock), and the owner token file that says
 * whose it is, so a lock broken and retaken by a newer claim is never released
 * by its old holder.
 */
import * as fs from 'node:fs';
import type { HeldExecution } from './executionClaim';
import { lockfile, privateLockFs } from './lockfileModule';
import { LockOptions, withLock } from './locks';
import { readRegularTextSync } from './regularFile';

/** Refreshed every stale/2 by the owner; its staleness is never used to judge liveness. */
export const EXECUTION_LOCK_STALE_MS = 10_000;

/**
 * Under the record lock, with the record saying no live worker owns the job:
 * a held execution lock can only be a dead owner's leftover (or a fenced-off
 * stale generation's), so it is broken at once instead of waiting for staleness.
 */
export async function takeExecutionLock(lockPath: string, claim: HeldExecution, log: (msg: string) => void): Promise<() => Promise<void>> {
  const take = () =>
    lockfile().lock(lockPath, {
      realpath: false,
      lockfilePath: lockPath,
      fs: privateLockFs(),
      stale: EXECUTION_LOCK_STALE_MS,
      retries: 0,
      onCompromised: (err) => claim.compromised(err),
    });
  try {
    return await take();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw err;
    log(`breaking the leftover execution lock ${lockPath}`);
    fs.rmSync(lockPath, { recursive: true, force: true });
    return take();
  }
}

export interface ExecutionLockFiles {
  /** The job's short record lock, taken while the owner file is checked. */
  recordLock: string;
  /** The owner token of whoever holds the execution lock. */
  ownerFile: string;
  what: string;
}

/** Releases only if the lock is still ours: a newer claim may have broken it and taken it since. */
export async function releaseExecutionLock(
  files: ExecutionLockFiles,
  lockOptions: LockOptions,
  ownerToken: string,
  releaseLock: () => Promise<void>,
): Promise<void> {
  await withLock(files.recordLock, files.what, lockOptions, async () => {
    let holder: string | undefined;
    try {
      holder = readRegularTextSync(files.ownerFile, 4096) ?? undefined;
    } catch {
      holder = undefined;
    }
    if (holder !== ownerToken) return;
    fs.rmSync(files.ownerFile, { force: true });
    await releaseLock();
  });
}
