/**
 * Reading records written by other versions of Paddock. Each step lifts a raw
 * record from version N to N + 1; a record from a newer Paddock is unreadable
 * (never guessed at, never overwritten).
 */
import { withKeptWordsLifted } from './keptWorktree';
import { withLeftoverWordsLifted, withoutOtherGenerationsFate } from './legacyLeftoverWords';
import { SCHEMA_VERSION, type JobRecord } from './schema';

type Step = (raw: Record<string, unknown>) => Record<string, unknown>;

/** MIGRATIONS[n] turns a version-n record into a version-(n + 1) record. */
export const MIGRATIONS: Readonly<Record<number, Step>> = {};

export type MigrationResult = { ok: true; value: Record<string, unknown>; from: number } | { ok: false; reason: string };

export function migrateRecord(raw: unknown, migrations: Readonly<Record<number, Step>> = MIGRATIONS, current = SCHEMA_VERSION): MigrationResult {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { ok: false, reason: 'the record is not a JSON object' };
  const record = raw as Record<string, unknown>;
  const version = record.schemaVersion;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    return { ok: false, reason: 'the record has no valid schemaVersion' };
  }
  if (version > current) {
    return { ok: false, reason: `it was written by a newer Paddock (schema ${version}; this one reads up to ${current})` };
  }
  let value = record;
  for (let v = version; v < current; v++) {
    const step = migrations[v];
    if (!step) return { ok: false, reason: `no migration from schema ${v} to ${v + 1}` };
    value = { ...step(value), schemaVersion: v + 1 };
  }
  return { ok: true, value, from: version };
}

/** How an earlier Paddock ended the lastError of a cleanup whose capture failed the same way every time. */
const STUCK_CAPTURE_WORDS = /; it failed the same way \d+ times, so it waits for you to retry it$/;

/**
 * What an earlier Paddock wrote within the current schema version, read as this one means it. A
 * capture that failed the same way every time was recorded as waiting for consent
 * (`awaitingConsent`) before `awaitingRetry` existed: such a record offered Clean Up Anyway, whose
 * question says files will be lost, where nothing would be, and Retry Cleanup Now is what it waits
 * for. Written back in this version's form by the record's next update.
 */
export function readAsThisVersion(job: JobRecord): JobRecord {
  return withKeptWordsLifted(withLeftoverWordsLifted(withoutOtherGenerationsFate(withoutEarlierTypedPrompt(withStuckCaptureAwaitingRetry(job)))));
}

function withStuckCaptureAwaitingRetry(job: JobRecord): JobRecord {
  const c = job.cleanup;
  if (!c?.awaitingConsent || c.awaitingRetry || !STUCK_CAPTURE_WORDS.test(c.lastError ?? '')) return job;
  return { ...job, cleanup: { ...c, awaitingConsent: false, awaitingRetry: true } };
}

/**
 * `settings.typedPrompt` is typed by the worker of the generation it belongs to
 * (`typedPromptGeneration`, absent: the first), by no later one. Paddock before bug 68's fix kept the
 * start's prompt there through its retries (only its generation 1 typed it; its retry typed its own
 * prompt itself), so a retry it queued and this version launched typed the start's prompt again.
 * Read as this version means it, an earlier generation's prompt is none.
 */
function withoutEarlierTypedPrompt(job: JobRecord): JobRecord {
  const s = job.settings;
  if (s.typedPrompt === undefined || (s.typedPromptGeneration ?? 1) === job.lifecycle.generation) return job;
  const { typedPrompt: _earlier, typedPromptGeneration: _its, ...settings } = s;
  return { ...job, settings };
}
