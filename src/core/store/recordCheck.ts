/**
 * A fast path for reading job records: the same checks as `JobRecordSchema`
 * (schema.ts), hand-written, for records that pass. zod spends about 50 µs on
 * a record (`paddock list` over 1,000 agents: 50–70 ms of validation); this
 * takes a few. It only ever accepts: a record it does not accept — invalid, or
 * with a field it does not know (a field added to the schema and not here) —
 * goes to zod, which decides and says why. So the store accepts exactly what
 * the schema accepts, as long as this accepts nothing the schema rejects and
 * returns what zod returns; test/unit/core/store/recordCheck.test.ts checks
 * both against the schema with fuzzed records, and that both know the same
 * fields.
 *
 * It checks in place and returns the value itself, not a copy: zod's output
 * for a record it accepts is that record (same values, keys in the schema's
 * order, which is the order Paddock writes them in), and a record parsed from
 * a file belongs to whoever parsed it. `paddock list` over 1,000 records made
 * ~25,000 objects copying them, and their garbage.
 *
 * This file checks the record's own fields; its parts are checked by
 * recordProcessCheck.ts, recordCleanupCheck.ts, recordSettingsCheck.ts and
 * recordOptionalPartsCheck.ts.
 */
import { type ClaimingRecord, recordClaimProblem } from './agentClaims';
import type { JobRecord, Usage } from './schema';
import { BASE_UPDATES_KEPT, JOB_ID_PATTERN, SCHEMA_VERSION } from './schema';
import { CLEANUP_KNOWN_KEYS, cleanup, evidence } from './recordCleanupCheck';
import { check, group, landing, OPTIONAL_PARTS_KNOWN_KEYS, setup, usage } from './recordOptionalPartsCheck';
import { execution, keptWorktree, launch, leftover, leftoversEnder, leftoversFate, lifecycle, PROCESS_KNOWN_KEYS } from './recordProcessCheck';
import { settings, SETTINGS_KNOWN_KEYS } from './recordSettingsCheck';
import { accepted, arr, bool, fail, int, isoTime, keys, nullable, obj, type Obj, optional, SHA, shaOrNull, str, strArr, strMatch, strOrNull } from './fastCheck';

/** The record's own keys, in the schema's order (also what the agreement test compares with the schema). */
export const JOB_RECORD_KEYS = keys(
  'schemaVersion',
  'id',
  'title',
  'repo',
  'worktree',
  'branch',
  'base',
  'baseSha',
  'baseUpdates',
  'profile',
  'command',
  'cwd',
  'envNames',
  'createdAt',
  'settings',
  'lifecycle',
  'launch',
  'execution',
  'recoveries',
  'cleanup',
  'evidence',
  'landing',
  'group',
  'check',
  'usage',
  'setup',
  'autoApprove',
  'leftovers',
  'leftoversEnder',
  'leftoversFate',
  'keptWorktree',
);

const landingOrNull = (x: unknown) => nullable(x, landing);
const groupOrNull = (x: unknown) => nullable(x, group);
const checkOrNull = (x: unknown) => nullable(x, check);
const usageOrNull = (x: unknown) => nullable(x, usage);
const setupOrNull = (x: unknown) => nullable(x, setup);
const leftovers = (x: unknown) => arr(x, 50, leftover);
function jobRecord(v: unknown): Obj {
  const i = obj(v, JOB_RECORD_KEYS);
  if (i.schemaVersion !== SCHEMA_VERSION) fail();
  strMatch(i.id, JOB_ID_PATTERN);
  str(i.title, 500);
  str(i.repo, 4096, 1);
  strOrNull(i.worktree, 4096);
  strOrNull(i.branch, 300);
  strOrNull(i.base, 300);
  shaOrNull(i.baseSha);
  optional(i, 'baseUpdates', (x) => arr(x, BASE_UPDATES_KEPT, (y) => strMatch(y, SHA)));
  strOrNull(i.profile, 100);
  strArr(i.command, 256, 8192, 1);
  str(i.cwd, 4096, 1);
  strArr(i.envNames, 256, 256);
  isoTime(i.createdAt);
  settings(i.settings);
  lifecycle(i.lifecycle);
  nullable(i.launch, launch);
  nullable(i.execution, execution);
  int(i.recoveries, 0);
  nullable(i.cleanup, cleanup);
  nullable(i.evidence, evidence);
  optional(i, 'landing', landingOrNull);
  optional(i, 'group', groupOrNull);
  optional(i, 'check', checkOrNull);
  optional(i, 'usage', usageOrNull);
  optional(i, 'setup', setupOrNull);
  optional(i, 'autoApprove', bool);
  optional(i, 'leftovers', leftovers);
  optional(i, 'leftoversEnder', (x) => nullable(x, leftoversEnder));
  optional(i, 'leftoversFate', (x) => nullable(x, leftoversFate));
  optional(i, 'keptWorktree', (x) => nullable(x, keptWorktree));
  if (recordClaimProblem(i as unknown as ClaimingRecord)) fail();
  return i;
}


/** Every object's known keys, by schema name: the agreement test compares each with the zod schema's shape. */
export const KNOWN_KEYS: Readonly<Record<string, ReadonlySet<string>>> = {
  JobRecordSchema: JOB_RECORD_KEYS,
  ...PROCESS_KNOWN_KEYS,
  ...CLEANUP_KNOWN_KEYS,
  ...SETTINGS_KNOWN_KEYS,
  ...OPTIONAL_PARTS_KNOWN_KEYS,
};

/**
 * The record itself when it passes every check of `JobRecordSchema`;
 * undefined when it does not, or when it has a field this check does not
 * know — then zod must decide.
 */
export function checkJobRecord(value: unknown): JobRecord | undefined {
  return accepted(value, jobRecord) as JobRecord | undefined;
}

/** The figures themselves when they pass every check of `UsageSchema`; undefined when zod must decide. */
export function checkUsage(value: unknown): Usage | undefined {
  return accepted(value, usage) as Usage | undefined;
}

