/**
 * Why an owned lock cannot be taken, and whether that is because nothing can be written where it is
 * (a full disk, a read-only store): nobody can take it then, so a caller whose work needs no lock to
 * be safe (a stop, which is what frees a disk an agent fills) may go on without it.
 */
import * as path from 'node:path';
import { describeError, failure } from '../common/errors';

/** The code of the error a free lock fails with when nothing can be written where it is. */
export const LOCK_UNWRITABLE = 'LOCK_UNWRITABLE';

const UNWRITABLE_WHY: Record<string, string | undefined> = {
  ENOSPC: 'no space is left on its disk',
  EDQUOT: 'its disk quota is used up',
  EROFS: 'its file system is read-only',
};

export function errnoOf(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

/** Why the free lock at `lockDir` cannot be taken, in one sentence; coded LOCK_UNWRITABLE when nothing can be written there. */
export function cannotTakeLock(lockDir: string, err: unknown): Error {
  const unwritable = UNWRITABLE_WHY[errnoOf(err) ?? ''];
  const why = unwritable ?? describeError(err);
  return failure(`the lock ${path.basename(lockDir)} in ${path.dirname(lockDir)} cannot be taken: ${why}`, unwritable ? LOCK_UNWRITABLE : undefined);
}

/** `err` as the LOCK_UNWRITABLE failure when nothing can be written where the lock is; otherwise as it is. */
export function unwritableOr(lockDir: string, err: unknown): unknown {
  return UNWRITABLE_WHY[errnoOf(err) ?? ''] ? cannotTakeLock(lockDir, err) : err;
}
