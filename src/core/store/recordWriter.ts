/**
 * The one write path of job records: a locked read-modify-write that validates,
 * redacts, commits durably while the lock provably holds, appends the timeline
 * and signals watchers. Every change to a record, whoever asks, ends here.
 */
import * as fs from 'node:fs';
import { describeError, failure } from '../common/errors';
import { ChangeSignal } from './changeSignal';
import { commitTemp, sweepTempFiles, writeTemp } from './durable';
import { Fence } from './executionClaim';
import { LockGuard, LockOptions, withLock } from './locks';
import { MessageRedaction, redactEntry, redactRecord } from './messageRedaction';
import { StoreLayout } from './paths';
import { describeIssues, Loaded, loadRecord, loadRecordAsync, recordText } from './records';
import { isTerminalState, JobRecord, TimelineEntry } from './schema';
import { dropStopRequest } from './stopRequest';
import { checkJobRecord, JOB_RECORD_KEYS } from './recordCheck';
import { storeSchemas } from './storeSchemas';
import { appendTimelineLine } from './timeline';
import { missingRecord } from './interruptedCreate';

/** What a write decided: the next record and the timeline lines that explain it. */
export interface Mutation {
  next: JobRecord;
  timeline?: Omit<TimelineEntry, 'at' | 'generation'>[];
}

export interface RecordWriterParts {
  layout: StoreLayout;
  lockOptions: LockOptions;
  redaction: MessageRedaction;
  changes: ChangeSignal;
  log: (msg: string) => void;
}

export class RecordWriter {
  constructor(private readonly parts: RecordWriterParts) {}

  load(id: string): Loaded {
    return loadRecord(id, this.parts.layout.recordFile(id));
  }

  loadAsync(id: string): Promise<Loaded> {
    return loadRecordAsync(id, this.parts.layout.recordFile(id));
  }

  /**
   * Locked read-modify-write: load (must be readable), let `fn` decide, validate
   * and redact the result, write it durably while the lock provably holds, then
   * append the timeline and signal watchers. `fn` returning undefined writes nothing.
   */
  async mutate(id: string, fn: (current: JobRecord) => Promise<Mutation | undefined>): Promise<JobRecord> {
    const { layout, lockOptions } = this.parts;
    // Nothing there, or no record (an interrupted create's leftover): refused before a lock is made in
    // it (which would make the leftover look like a create under way), or fails in errno words on a file.
    if (!fs.existsSync(layout.recordFile(id))) throw missingRecord(layout, id);
    return withLock(layout.recordLock(id), `agent ${id}`, lockOptions, async (guard: LockGuard) => {
      // Temp files a crashed writer of the record left behind go before this write makes its own
      // (only the record's: the folder's other files have writers this lock does not hold off).
      sweepTempFiles(layout.recordFile(id));
      const loaded = this.load(id);
      if (loaded.kind === 'missing') throw missingRecord(layout, id);
      if (loaded.kind === 'unreadable') throw failure(`Agent ${id} is unreadable: ${loaded.reason}.`, 'UNREADABLE');
      const mutation = await fn(loaded.job);
      if (!mutation) return loaded.job;
      const redact = this.parts.redaction.forJob(mutation.next);
      const next = validated(id, redactRecord(mutation.next, redact));
      const target = layout.recordFile(id);
      const temp = await writeTemp(target, recordText(next));
      try {
        guard.assertHeld();
        commitTemp(temp, target);
      } catch (err) {
        fs.rmSync(temp, { force: true });
        throw err;
      }
      const at = new Date().toISOString();
      for (const entry of mutation.timeline ?? []) {
        try {
          appendTimelineLine(layout.timelineFile(id), redactEntry({ ...entry, at, generation: next.lifecycle.generation }, redact));
        } catch (err) {
          this.parts.log(`timeline of agent ${id}: ${describeError(err)}`);
        }
      }
      this.parts.changes.touch(id);
      // Whoever records the end (the worker's own finish, a forced stop, a reader): a stop request kept for
      // this execution while the store could not be written is done with (bug 141).
      if (loaded.job.execution && isTerminalState(next.lifecycle.state)) await dropStopRequest(loaded.job);
      return next;
    });
  }
}

/**
 * The hand-written check answers for a valid record (no zod schema is built for a worker's or the
 * CLI's few writes); zod says why one is not. Written with its fields in the schema's order, as zod
 * would return them: an optional field a change adds (`{ ...job, usage }`) comes last otherwise.
 */
function validated(id: string, job: JobRecord): JobRecord {
  const fast = checkJobRecord(job);
  if (fast) return inSchemaOrder(fast);
  const parsed = storeSchemas().JobRecordSchema.safeParse(job);
  if (!parsed.success) throw failure(`The change to agent ${id} is invalid: ${describeIssues(parsed.error.issues)}.`, 'INVALID_UPDATE');
  return parsed.data;
}

function inSchemaOrder(job: JobRecord): JobRecord {
  let at = -1;
  let ordered = true;
  for (const key of Object.keys(job)) {
    const position = JOB_RECORD_ORDER.get(key)!;
    if (position < at) ordered = false;
    at = position;
  }
  if (ordered) return job;
  const out: Record<string, unknown> = {};
  for (const key of JOB_RECORD_KEYS) if (key in job) out[key] = (job as unknown as Record<string, unknown>)[key];
  return out as unknown as JobRecord;
}

const JOB_RECORD_ORDER = new Map([...JOB_RECORD_KEYS].map((key, i) => [key, i]));

/** Refuses a worker's write once it no longer owns the job (another claim, another generation). */
export function checkFence(job: JobRecord, fence: Fence | undefined): void {
  if (!fence) return;
  const owner = job.execution;
  if (!owner || owner.ownerToken !== fence.ownerToken || owner.generation !== fence.generation || job.lifecycle.generation !== fence.generation) {
    throw failure(`Agent ${job.id} is no longer owned by this worker (generation ${fence.generation}); the write was refused.`, 'FENCED');
  }
}
