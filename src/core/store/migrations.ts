/**
 * Reading records written by other versions of Paddock. Each step lifts a raw
 * record from version N to N + 1; a record from a newer Paddock is unreadable
 * (never guessed at, never overwritten).
 */
import { SCHEMA_VERSION } from './schema';

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
