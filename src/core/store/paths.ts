/**
 * Where things live under $PADDOCK_HOME, and the one place job ids are
 * validated before they become part of a path.
 */
import { homedir } from 'node:os';
import { join, sep } from 'node:path';
import { usageError } from '../common/errors';
import { JOB_ID_PATTERN } from './schema';

export const RECORD_FILE = 'job.json';
export const TIMELINE_FILE = 'timeline.jsonl';
export const OUTPUT_DIR = 'output';
export const EVIDENCE_DIR = 'evidence';
export const PATCH_FILE = 'snapshot.patch';
/** The environment of the request that started the job, sealed (coordinator/requestEnv.ts). */
export const REQUEST_ENV_FILE = 'env.sealed';
/** The worker's own log (worker/spawn.ts). */
export const WORKER_LOG_FILE = 'worker.log';
/** The agent's last screen, saved when it ends (worker/finalScreen.ts). */
export const FINAL_SCREEN_FILE = 'screen.txt';
/** A person's review comments on the agent's files (reviewFile.ts). */
export const REVIEW_FILE = 'review.json';
/** Every entry of a captured worktree and where it went (git/evidenceManifest.ts), in EVIDENCE_DIR. */
export const INVENTORY_FILE = 'inventory.json';
export const JOBS_DIR = 'jobs';
/** proper-lockfile lock directories (mkdir-based) next to the record. */
export const RECORD_LOCK = 'job.lock';
export const EXECUTION_LOCK = 'execution.lock';
/** The owner token of whoever holds EXECUTION_LOCK: a broken-and-retaken lock is never released by its old holder. */
export const EXECUTION_OWNER = 'execution.owner';

export function defaultHome(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PADDOCK_HOME) return env.PADDOCK_HOME;
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, 'paddock');
  return join(env.HOME || homedir(), '.local', 'state', 'paddock');
}

export function isJobId(id: unknown): id is string {
  return typeof id === 'string' && JOB_ID_PATTERN.test(id);
}

/** Throws a usage error for anything that is not a well-formed id, so no id can name a path outside the store. */
export function assertJobId(id: unknown): asserts id is string {
  if (!isJobId(id)) {
    const shown = typeof id === 'string' ? JSON.stringify(id.slice(0, 40)) : String(id);
    throw usageError(`${shown} is not a Paddock agent id (expected 6–12 lowercase letters or digits).`, 'BAD_ID');
  }
}

export class StoreLayout {
  /** Computed once: listing a thousand records asks for it several times per record. */
  readonly jobsDir: string;

  constructor(readonly home: string) {
    this.jobsDir = join(home, JOBS_DIR);
  }

  /** One small file per job, rewritten after every change: the cheap thing watchers watch. */
  get changesDir(): string {
    return join(this.home, 'changes');
  }

  /**
   * Where a forgotten agent's evidence is kept when its archive holds work the snapshot ref lacks
   * (ignored files, nested repositories' git dirs): `kept/<id>` (keptEvidence.ts), deleted by `prune --snapshots`.
   */
  keptDir(id: string): string {
    assertJobId(id);
    return join(this.home, 'kept', id);
  }

  jobDir(id: string): string {
    assertJobId(id);
    // A checked id is a plain name (letters and digits): nothing for join to normalise.
    return `${this.jobsDir}${sep}${id}`;
  }

  recordFile(id: string): string {
    return `${this.jobDir(id)}${sep}${RECORD_FILE}`;
  }

  recordLock(id: string): string {
    return join(this.jobDir(id), RECORD_LOCK);
  }

  executionLock(id: string): string {
    return join(this.jobDir(id), EXECUTION_LOCK);
  }

  executionOwner(id: string): string {
    return join(this.jobDir(id), EXECUTION_OWNER);
  }

  timelineFile(id: string): string {
    return join(this.jobDir(id), TIMELINE_FILE);
  }

  outputDir(id: string): string {
    return join(this.jobDir(id), OUTPUT_DIR);
  }

  evidenceDir(id: string): string {
    return join(this.jobDir(id), EVIDENCE_DIR);
  }

  patchPath(id: string): string {
    return join(this.evidenceDir(id), PATCH_FILE);
  }

  changeFile(id: string): string {
    assertJobId(id);
    return join(this.changesDir, id);
  }
}
