/**
 * Why an owned lock cannot be taken, and whether that is because nothing can be written where it is
 * (a full disk, a read-only store): nobody can take it then, so a caller whose work needs no lock to
 * be safe (a stop, which is what frees a disk an agent fills) may go on without it. Which codes say so,
 * and in which words, is common/fsErrors.ts's one list (`unwritableCode`, `fsReasonWords`).
 */
import * as path from 'node:path';
import { describeError, failure } from '../common/errors';
import { fsReasonWords, unwritableCode } from '../common/fsErrors';

/** The code of the error a free lock fails with when nothing can be written where it is. */
export const LOCK_UNWRITABLE = 'LOCK_UNWRITABLE';

export function errnoOf(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

/** Why the free lock at `lockDir` cannot be taken, in one sentence; coded LOCK_UNWRITABLE when nothing can be written there. */
export function cannotTakeLock(lockDir: string, err: unknown): Error {
  const unwritable = unwritableCode(err);
  const why = unwritable ? fsReasonWords(unwritable) : describeError(err);
  return failure(`the lock ${path.basename(lockDir)} in ${path.dirname(lockDir)} cannot be taken: ${why}`, unwritable ? LOCK_UNWRITABLE : undefined);
}

/** `err` as the LOCK_UNWRITABLE failure when nothing can be written where the lock is; otherwise as it is. */
export function unwritableOr(lockDir: string, err: unknown): unknown {
  return unwritableCode(err) ? cannotTakeLock(lockDir, err) : err;
}
