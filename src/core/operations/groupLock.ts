/**
 * The group's keep lock: one Keep This One per group at a time, store-wide. Two windows (or a
 * window and the extension host of another) keeping different attempts of one group at once each
 * cleaned up the other's kept attempt (bug 154): each judged its own kept attempt before the other
 * had begun on it. Under this lock the second keep reads its attempt after the first has finished,
 * finds it cleaned up, and refuses. A person's Clean Up of an attempt of the group takes it too, so
 * it never runs between two of a keep's cleanups; nothing else does (a Stop, a retry, a landing or
 * a restore of the kept attempt goes on at once during a keep).
 */
import * as path from 'node:path';
import { OwnedLock, type HeldLock } from '../coordinator/ownedLock';
import type { JobStore } from '../store';
import { heldOperationLock } from './context';

export function groupKeepLock(store: JobStore, groupId: string): OwnedLock {
  store.jobDir(groupId); // a group id is shaped like a job id: validated before it becomes part of a path
  return new OwnedLock(path.join(store.home, 'coordinator', 'ops', `group-${groupId}.keep.lock`), `keeping an attempt of group ${groupId}`);
}

/**
 * The group's keep lock, waited for as long as an operation waits for another's (a keep cleans up
 * others, which may take a while), or one sentence saying why it could not be had.
 */
export function heldGroupKeepLock(store: JobStore, groupId: string, keptId: string, waitMs?: number): Promise<HeldLock> {
  return heldGroupLock(store, groupId, `Could not keep agent ${keptId}`, waitMs);
}

/**
 * The same lock for a person's Clean Up of an attempt of the group (the kept one or any other): it
 * waits for a keep under way rather than run beside it. Taken before the attempt's own job lock,
 * never while holding one; the keep's own cleanups do not take it again.
 */
export function heldGroupLockForCleanup(store: JobStore, groupId: string, id: string): Promise<HeldLock> {
  return heldGroupLock(store, groupId, `Could not clean up agent ${id}`);
}

function heldGroupLock(store: JobStore, groupId: string, refusal: string, waitMs?: number): Promise<HeldLock> {
  return heldOperationLock(groupKeepLock(store, groupId), refusal, {
    busy: `another window or process is keeping an attempt of group ${groupId}; try again once it has finished.`,
    waitMs,
  });
}
