/**
 * The group's keep lock: one Keep This One per group at a time, store-wide. Two windows (or a
 * window and the extension host of another) keeping different attempts of one group at once each
 * cleaned up the other's kept attempt (bug 154): each judged its own kept attempt before the other
 * had begun on it. Under this lock the second keep reads its attempt after the first has finished,
 * finds it cleaned up, and refuses.
 *
 * Shared for Clean Ups, exclusive for a keep: a person's Clean Up of an attempt of the group takes the
 * lock only for a moment, to leave a marker of its own (`group-<gid>.cleaning-<id>-<token>.lock`,
 * held until it ends), so a Clean Up never starts while a keep runs, yet Clean Ups of one group run
 * side by side (holding the lock for the whole Clean Up made each wait for the others, then blame a
 * keep). A keep starting after the marker was left sees it, under the lock, and leaves that attempt
 * alone. Nothing else takes the lock (a Stop, a retry, a landing or a restore goes on at once).
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { OwnedLock, type HeldLock } from '../coordinator/ownedLock';
import type { JobStore } from '../store';
import { heldOperationLock, operationLocksDir } from './context';

export function groupKeepLock(store: JobStore, groupId: string): OwnedLock {
  store.jobDir(groupId); // a group id is shaped like a job id: validated before it becomes part of a path
  return new OwnedLock(path.join(operationLocksDir(store), `group-${groupId}.keep.lock`), `keeping an attempt of group ${groupId}`);
}

/**
 * The group's keep lock, waited for as long as an operation waits for another's (a keep cleans up
 * others, which may take a while), or one sentence saying why it could not be had.
 */
export function heldGroupKeepLock(store: JobStore, groupId: string, keptId: string, waitMs?: number): Promise<HeldLock> {
  return heldGroupLock(store, groupId, `Could not keep agent ${keptId}`, waitMs);
}

/**
 * A person's Clean Up of an attempt of the group (the kept one or any other) enters the group: it
 * waits for a keep under way, then leaves its marker and lets the lock go at once. Taken before the
 * capacity slot and the attempt's own job lock, never while holding one. The marker is released when
 * the Clean Up ends; a dead process's marker counts for nothing (its owner is gone).
 */
export async function enterGroupCleanup(store: JobStore, groupId: string, id: string): Promise<HeldLock> {
  const group = await heldGroupLock(store, groupId, `Could not clean up agent ${id}`);
  try {
    const token = randomBytes(6).toString('hex');
    const marker = new OwnedLock(path.join(operationLocksDir(store), `${markerPrefix(store, groupId, id)}${token}.lock`), `cleaning up ${id}`);
    const held = await marker.tryAcquire();
    if (!held) throw new Error(`Could not clean up agent ${id}: its marker ${token} was taken.`); // a fresh random name: never
    return held;
  } finally {
    await group.release();
  }
}

/**
 * Whether a person's Clean Up of `id` is under way (entered and not ended). Asked by a keep under the
 * group's lock, so no Clean Up enters meanwhile. A dead process's marker is taken over and removed.
 */
export async function cleanupUnderWay(store: JobStore, groupId: string, id: string): Promise<boolean> {
  const prefix = markerPrefix(store, groupId, id);
  const names = await fs.readdir(operationLocksDir(store)).catch(() => [] as string[]);
  let live = false;
  for (const name of names) {
    if (!name.startsWith(prefix) || !/^[0-9a-f]{12}\.lock$/.test(name.slice(prefix.length))) continue;
    const marker = new OwnedLock(path.join(operationLocksDir(store), name), `cleaning up ${id}`);
    const abandoned = await marker.tryAcquire();
    if (abandoned) await abandoned.release();
    else live = true;
  }
  return live;
}

/**
 * Removes the markers that killed Clean Ups of `id` left (live ones stay): asked as a person's Clean Up
 * of it ends, so a crashed one's marker does not stay in `coordinator/ops` until a keep asks about it.
 */
export async function sweepDeadCleanupMarkers(store: JobStore, groupId: string, id: string): Promise<void> {
  await cleanupUnderWay(store, groupId, id);
}

/** Both ids are shaped like job ids: validated before they become part of a name. */
function markerPrefix(store: JobStore, groupId: string, id: string): string {
  store.jobDir(groupId);
  store.jobDir(id);
  return `group-${groupId}.cleaning-${id}-`;
}

function heldGroupLock(store: JobStore, groupId: string, refusal: string, waitMs?: number): Promise<HeldLock> {
  return heldOperationLock(groupKeepLock(store, groupId), refusal, {
    busy: `another window or process is keeping an attempt of group ${groupId}; try again once it has finished.`,
    waitMs,
  });
}
