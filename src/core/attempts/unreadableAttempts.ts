/**
 * Attempts whose record cannot be read. The store still lists such a record
 * (unreadable, with the reason); it is not forgotten and must not be counted
 * so. Its group is read from the raw file when the file is still JSON that
 * names one (a record that fails only the schema); when the file is not
 * JSON, nothing says whose attempt it was, and it is named as one that may be.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { JobEntry } from '../store/jobReader';
import { RECORD_FILE } from '../store/paths';

export interface UnreadableAttempt {
  id: string;
  /** Why its record cannot be read. */
  reason: string;
  /** Its raw record names this group; false: its group cannot be read, so it may be one of the attempts. */
  certain: boolean;
}

/** The group id a damaged record's raw text still names: a string, null when it names none, undefined when that cannot be told. */
function rawGroupId(text: string): string | null | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof raw !== 'object' || raw === null) return undefined;
  const group = (raw as { group?: unknown }).group;
  if (group === undefined || group === null) return null;
  const id = typeof group === 'object' ? (group as { id?: unknown }).id : undefined;
  return typeof id === 'string' ? id : undefined;
}

/**
 * Unreadable records that are, or may be, attempts of `groupId`. Those that may be are named only
 * while some attempts are unaccounted for (`missing` > 0): otherwise none can be this group's.
 */
export async function unreadableAttempts(entries: readonly JobEntry[], groupId: string, jobDir: (id: string) => string, missing: number): Promise<UnreadableAttempt[]> {
  const out: UnreadableAttempt[] = [];
  if (missing <= 0) return out;
  for (const entry of entries) {
    // A folder whose create died before its record was never an attempt that ran.
    if (entry.ok || entry.interruptedCreate) continue;
    const text = await fs.readFile(path.join(jobDir(entry.id), RECORD_FILE), 'utf8').catch(() => null);
    const named = text === null ? undefined : rawGroupId(text);
    if (named === groupId) out.push({ id: entry.id, reason: entry.reason, certain: true });
    else if (named === undefined) out.push({ id: entry.id, reason: entry.reason, certain: false });
  }
  return out;
}
