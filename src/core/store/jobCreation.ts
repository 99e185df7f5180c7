/**
 * Creating a job: an id claimed by an exclusive mkdir, its folders, the first
 * record (validated) and the first timeline line. A create that fails leaves
 * no folder behind.
 */
import { randomBytes } from '../common/lazyCrypto';
import * as fs from 'node:fs';
import { failure, usageError } from '../common/errors';
import { ChangeSignal } from './changeSignal';
import { commitTemp, ensureDir, writeTemp } from './durable';
import { initialRecord, NewJob } from './newJob';
import { StoreLayout } from './paths';
import { describeIssues, recordText } from './records';
import { JobRecord } from './schema';
import { storeSchemas } from './storeSchemas';
import { appendTimelineLine } from './timeline';

/**
 * `beforeRecord`: runs once the id is claimed, before the record exists (so before anyone can list
 * the job): the start takes the job's operation lock there and holds it while it prepares the job.
 */
export async function createJob(layout: StoreLayout, changes: ChangeSignal, init: NewJob, beforeRecord?: (id: string) => Promise<void>): Promise<JobRecord> {
  ensureDir(layout.jobsDir);
  const id = allocateId(layout);
  try {
    await beforeRecord?.(id);
    return await writeNewJob(layout, changes, id, init);
  } catch (err) {
    // A job folder without its record (full disk, read-only store) would list as unreadable
    // forever: nothing was started for it yet, so it goes.
    fs.rmSync(layout.jobDir(id), { recursive: true, force: true });
    throw err;
  }
}

async function writeNewJob(layout: StoreLayout, changes: ChangeSignal, id: string, init: NewJob): Promise<JobRecord> {
  const dir = layout.jobDir(id);
  ensureDir(layout.outputDir(id));
  ensureDir(layout.evidenceDir(id));
  const now = new Date().toISOString();
  const candidate = initialRecord(id, init, now);
  const parsed = storeSchemas().JobRecordSchema.safeParse(candidate);
  if (!parsed.success) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw usageError(`The new agent is invalid: ${describeIssues(parsed.error.issues)}.`, 'INVALID_JOB');
  }
  const job = parsed.data;
  const temp = await writeTemp(layout.recordFile(id), recordText(job));
  commitTemp(temp, layout.recordFile(id));
  appendTimelineLine(layout.timelineFile(id), { at: now, generation: 1, type: 'created', to: 'queued' });
  changes.touch(id);
  return job;
}

/** The mkdir of jobs/<id> is the exclusive claim on an id: no two processes can both succeed. */
function allocateId(layout: StoreLayout): string {
  for (let attempt = 0; attempt < 50; attempt++) {
    const id = (BigInt(`0x${randomBytes(8).toString('hex')}`) % 36n ** 8n).toString(36).padStart(8, '0');
    try {
      fs.mkdirSync(layout.jobDir(id), { mode: 0o700 });
      return id;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  throw failure('Could not allocate a new agent id.');
}
