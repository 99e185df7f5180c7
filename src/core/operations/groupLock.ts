/**
 * The group's keep lock: one Keep This One per group at a time, store-wide. Two windows (or a
 * window and the extension host of another) keeping different attempts of one group at once each
 * cleaned up the other's kept attempt (bug 154): each judged its own kept attempt before the other
 * had begun on it. Under this lock the second keep reads its attempt after the first has finished,
 * finds it cleaned up, and refuses.
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
  return heldOperationLock(groupKeepLock(store, groupId), `Could not keep agent ${keptId}`, {
    busy: `another window or process is keeping an attempt of group ${groupId}; try again once it has finished.`,
    waitMs,
  });
}
