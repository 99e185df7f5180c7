/**
 * "Notified once" across processes: every window sees the same record change,
 * and only the first to claim (job, generation, event) shows the notification.
 * The claim is a file created with O_EXCL (`wx`): exactly one creator wins,
 * on any local file system, with no lock to leak. Claims live in the job's own
 * folder, so they go when the job's folder goes. An event about several agents
 * at once (capacity blocked by their failed cleanups) is claimed once per set
 * of agents, in the folder of the set's first one.
 */
import { createHash } from '../common/lazyCrypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { assertJobId } from './paths';

export const NOTIFIED_DIR = 'notified';
const FILE_MODE = 0o600;

/** A notification worth showing once: what happened to which execution of an agent. */
export interface NotificationKey {
  jobId: string;
  generation: number;
  event: string;
}

function eventName(event: string): string {
  if (!/^[a-z][a-z-]{0,40}$/.test(event)) throw new Error(`not a notification event name: ${event}`);
  return event;
}

function claimName(key: NotificationKey): string {
  if (!Number.isInteger(key.generation) || key.generation < 0) throw new Error(`not a generation: ${key.generation}`);
  return `${key.generation}-${eventName(key.event)}`;
}

/**
 * True for exactly one caller per key, across processes; false for everyone
 * after. A store that cannot be written to (removed job, read-only disk)
 * answers false: better no toast than one per window.
 */
export async function claimNotification(jobDir: string, key: NotificationKey): Promise<boolean> {
  assertJobId(key.jobId);
  return claimFile(jobDir, claimName(key));
}

/**
 * `claimNotification` for an event about a set of agents: true for exactly one
 * caller per (event, set), whatever the order the ids come in. The same set
 * blocking again later is not claimed again (its claim stays until its first
 * agent's folder goes); a set with one agent more or less is a new claim.
 */
export async function claimSetNotification(jobDirOf: (id: string) => string, event: string, jobIds: readonly string[]): Promise<boolean> {
  const ids = [...new Set(jobIds)].sort();
  if (ids.length === 0) return false;
  for (const id of ids) assertJobId(id);
  const digest = createHash('sha256').update(ids.join(',')).digest('hex').slice(0, 16);
  return claimFile(jobDirOf(ids[0]), `${eventName(event)}-${digest}`);
}

async function claimFile(jobDir: string, name: string): Promise<boolean> {
  const dir = join(jobDir, NOTIFIED_DIR);
  const file = join(dir, name);
  try {
    // Not recursive: a job whose folder is gone must not be brought back as a stray folder.
    await fs.promises.mkdir(dir, { mode: 0o700 }).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
    const handle = await fs.promises.open(file, 'wx', FILE_MODE);
    await handle.close();
    return true;
  } catch {
    return false;
  }
}
