/** What the operations take and report. */
import type { CleanupOutcome } from '../coordinator/cleanupRunner';
import type { JobRecord } from '../store/schema';

export interface StopReport {
  id: string;
  /** The execution this stop acted on (read under the job's operation lock, so a concurrent retry cannot blur it). */
  generation: number;
  /**
   * What this stop did: cancelled a queued execution, stopped a live one, ended what an ended one left running,
   * ended the processes of an agent whose record cannot be read (found by their marker; the record left as it was), or nothing.
   */
  action: 'cancelled-queued' | 'stopped' | 'ended-leftovers' | 'ended-unreadable' | 'none';
  /** True when the agent is proven stopped (terminal, no process of it left). */
  stopped: boolean;
  /** The state of the execution stopped; `unreadable` when the record cannot be read (the state it holds is unknown). */
  state: JobRecord['lifecycle']['state'] | 'unreadable';
  /** Why the record cannot be read, when it cannot (action `ended-unreadable`). */
  unreadable?: string;
  /** Processes this stop ended itself (the worker was gone, frozen, or the agent had ended with leftovers). */
  ended: { pid: number; command: string }[];
  /** Why it could not be proven stopped. */
  reason: string | null;
  /**
   * Why nothing could be written in the store (a full disk, a read-only store): the stop went on without its
   * lock, and its end may be unrecorded; `kept`: the stop was kept in the runtime directory for a reader to record
   * ('already': an earlier stop had kept it).
   */
  unwritable?: { why: string; kept: 'kept' | 'already' | false };
}

export interface StopAllReport {
  stopped: string[];
  notStopped: { id: string; reason: string }[];
}

export interface CleanupOptions {
  /** Delete the branch even when it has commits found nowhere else. */
  deleteBranch?: boolean;
  /** "Clean Up Anyway": drop what cannot be archived (over the limit, unreadable), recording it as lost. */
  dropUnarchivable?: boolean;
  /** Ignored paths that may be dropped as regenerable; default: the store policy. */
  regenerable?: readonly string[];
  /** Archive size allowed without consent, in MB; default: the store policy. */
  archiveLimitMB?: number;
  /** The command that runs it was interrupted: a teardown running is ended and fails its stage (CleanupRequest.abort). */
  abort?: AbortSignal;
}

/** What one cleanup attempt did: the cleanup runner's outcome, one type for every caller. */
export type CleanupReport = CleanupOutcome;
