/**
 * A job's record file: its text form, and reading it back (JSON, migration,
 * zod validation) into a record or the reason it is unreadable. Never throws
 * for a bad file: a corrupt record is shown as unreadable, not as a crash.
 */
import { MAX_RECORD_DEPTH, unknownFieldsDepth } from './jsonDepth';
import { fsFailureWords } from '../common/fsErrors';
import { migrateRecord, readAsThisVersion } from './migrations';
import { checkJobRecord, KNOWN_KEYS } from './recordCheck';
import { isNotRegularFile, notRegularReason, readRegularText, readRegularTextSync } from './regularFile';
import { JobRecord } from './schema';
import { storeSchemas } from './storeSchemas';

export type Loaded = { kind: 'ok'; job: JobRecord } | { kind: 'missing' } | { kind: 'unreadable'; reason: string };

/** Reads and validates the record at `file` (the record of job `id`). */
export function loadRecord(id: string, file: string): Loaded {
  let text: string;
  try {
    // Records are a few KB: one synchronous read beats the four thread-pool hops of
    // fs.promises.readFile (measured: listing 1,000 jobs 101–262 ms → 22–64 ms).
    // Opened non-blocking and checked to be a regular file: a FIFO or device there is unreadable, never a hang.
    text = readRegularTextSync(file) ?? '';
  } catch (err) {
    return unloaded(err);
  }
  return parseRecordText(id, text);
}

/** loadRecord without blocking the event loop: a window's operation checks its id so (bug 141's read as stored). */
export async function loadRecordAsync(id: string, file: string): Promise<Loaded> {
  let text: string;
  try {
    text = (await readRegularText(file)) ?? '';
  } catch (err) {
    return unloaded(err);
  }
  return parseRecordText(id, text);
}

/** What a record that could not be read is: missing, or unreadable and why. */
function unloaded(err: unknown): Loaded {
  if (isNotRegularFile(err)) return { kind: 'unreadable', reason: notRegularReason(err) };
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
  return { kind: 'unreadable', reason: `it cannot be read: ${fsFailureWords(err)}` };
}

export function recordText(job: JobRecord): string {
  return `${JSON.stringify(job, null, 2)}\n`;
}

// `trim() === ''` copied every record's text to find its first character (1,000 records: ~3 MB of garbage a listing).
const BLANK = /^\s*$/;

/** Parses and validates a record file's text; never throws. */
export function parseRecordText(id: string, text: string): Loaded {
  if (BLANK.test(text)) return { kind: 'unreadable', reason: 'the record is empty' };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { kind: 'unreadable', reason: 'the record is not valid JSON (truncated or corrupt)' };
  }
  const migrated = migrateRecord(raw);
  if (!migrated.ok) return { kind: 'unreadable', reason: migrated.reason };
  const job = validRecord(migrated.value);
  if (!job.ok) return { kind: 'unreadable', reason: job.reason };
  if (job.record.id !== id) return { kind: 'unreadable', reason: `the record names agent ${job.record.id}, not ${id}` };
  return { kind: 'ok', job: readAsThisVersion(job.record) };
}

/**
 * The record as JobRecordSchema accepts it. The hand-written check (the same
 * rules, several times faster) answers for records that pass it; zod decides
 * everything else, and says why (see recordCheck.ts).
 */
function validRecord(value: unknown): { ok: true; record: JobRecord } | { ok: false; reason: string } {
  const fast = checkJobRecord(value);
  if (fast) return { ok: true, record: fast };
  // Unknown keys are kept as they are; nested this deep, no write of the record could serialise it (bug 150).
  const depth = value !== null && typeof value === 'object' && !Array.isArray(value) ? unknownFieldsDepth(value as Record<string, unknown>, KNOWN_KEYS.JobRecordSchema!) : 0;
  if (depth > MAX_RECORD_DEPTH) return { ok: false, reason: `the record nests ${depth} levels deep, past the ${MAX_RECORD_DEPTH} Paddock can carry (corrupt or edited)` };
  const parsed = storeSchemas().JobRecordSchema.safeParse(value);
  return parsed.success ? { ok: true, record: parsed.data } : { ok: false, reason: `the record does not match the schema (${describeIssues(parsed.error.issues)})` };
}

export function describeIssues(issues: readonly { path: PropertyKey[]; message: string }[]): string {
  const first = issues[0];
  if (!first) return 'unknown problem';
  const where = first.path.length ? first.path.map(String).join('.') : 'record';
  const more = issues.length > 1 ? ` and ${issues.length - 1} more` : '';
  return `${where}: ${first.message}${more}`;
}
