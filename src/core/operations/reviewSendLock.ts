/**
 * One Send Review per agent at a time, store-wide. Two sends at once (two windows, a double click on
 * the thread's button) each read the same unsent comments before either marked them sent, and the
 * agent got the review twice (bug 155): typed in twice, or typed into the retry that already had it
 * as its prompt. Under this lock the second send reads the review after the first marked it.
 * Not the job's operation lock: a send's retry takes that one itself.
 */
import * as path from 'node:path';
import { OwnedLock, type HeldLock } from '../coordinator/ownedLock';
import type { JobStore } from '../store';
import { heldOperationLock, operationLocksDir } from './context';

export function reviewSendLock(store: JobStore, id: string): OwnedLock {
  store.jobDir(id); // validates the id before it becomes part of a path
  return new OwnedLock(path.join(operationLocksDir(store), `${id}.review.lock`), `sending the review of ${id}`);
}

/** The agent's review-send lock, waited for as an operation waits (a send may wait for a retry to run), or one sentence saying why it could not be had. */
export function heldReviewSendLock(store: JobStore, id: string): Promise<HeldLock> {
  return heldOperationLock(reviewSendLock(store, id), `Could not send the review of agent ${id}`);
}
