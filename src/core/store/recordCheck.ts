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
 */
import { type ClaimingRecord, recordClaimProblem } from './agentClaims';
import type { JobRecord, Usage } from './schema';
import { JOB_ID_PATTERN, LIFECYCLE_STATES, SCHEMA_VERSION } from './schema';

import { accepted, arr, bool, fail, int, intOrNull, isoTime, keys, nullable, num, numOrNull, obj, type Obj, oneOf, optional, shaOrNull, str, strArr, strMatch, strOrNull, timeOrNull } from './fastCheck';

const WAITING_REASONS = ['signal', 'pattern', 'idle'] as const;

const LIFECYCLE_KEYS = keys('state', 'generation', 'exitCode', 'signal', 'pid', 'workerPid', 'startedAt', 'endedAt', 'detail', 'lastActivityAt', 'waitingReason');
function lifecycle(v: unknown): Obj {
  const i = obj(v, LIFECYCLE_KEYS);
  oneOf(i.state, LIFECYCLE_STATES);
  int(i.generation, 1);
  intOrNull(i.exitCode);
  strOrNull(i.signal, 32);
  intOrNull(i.pid, 1);
  intOrNull(i.workerPid, 1);
  timeOrNull(i.startedAt);
  timeOrNull(i.endedAt);
  strOrNull(i.detail, 2000);
  timeOrNull(i.lastActivityAt);
  if (i.waitingReason !== null) oneOf(i.waitingReason, WAITING_REASONS);
  return i;
}

const EXECUTION_KEYS = keys('ownerToken', 'generation', 'pid', 'startTime', 'bootId', 'socketPath', 'socketToken', 'claimedAt');
function execution(v: unknown): Obj {
  const i = obj(v, EXECUTION_KEYS);
  str(i.ownerToken, 128, 16);
  int(i.generation, 1);
  int(i.pid, 1);
  int(i.startTime, 0);
  str(i.bootId, 64);
  str(i.socketPath, 200, 1);
  str(i.socketToken, 128, 16);
  isoTime(i.claimedAt);
  return i;
}

const LAUNCH_KEYS = keys('workerPid', 'startTime', 'bootId', 'generation', 'launchedAt');
function launch(v: unknown): Obj {
  const i = obj(v, LAUNCH_KEYS);
  int(i.workerPid, 1);
  int(i.startTime, 0);
  str(i.bootId, 64);
  int(i.generation, 1);
  isoTime(i.launchedAt);
  return i;
}

const HOLDER_KEYS = keys('pid', 'command');
function holder(v: unknown): Obj {
  const i = obj(v, HOLDER_KEYS);
  int(i.pid, 1);
  str(i.command, 500);
  return i;
}

const LEFTOVER_KEYS = keys('pid', 'command', 'startTime', 'bootId');
const startTime = (x: unknown) => int(x, 0);
const bootId = (x: unknown) => str(x, 64);
function leftover(v: unknown): Obj {
  const i = obj(v, LEFTOVER_KEYS);
  int(i.pid, 1);
  str(i.command, 500);
  optional(i, 'startTime', startTime);
  optional(i, 'bootId', bootId);
  return i;
}

const CLEANUP_KEYS = keys(
  'phase',
  'remaining',
  'stage',
  'failures',
  'nextAttemptAt',
  'lastError',
  'needsAttention',
  'holders',
  'deleteBranch',
  'fingerprint',
  'branchOutcome',
  'requestedAt',
  'updatedAt',
  'regenerable',
  'archiveLimitBytes',
  'dropUnarchivable',
  'awaitingConsent',
  'awaitingRetry',
  'teardownDone',
  'teardownSkipped',
);
const CLEANUP_PHASES = ['requested', 'terminating', 'capturing', 'removing', 'complete', 'incomplete'] as const;
const CLEANUP_STAGES = ['terminating', 'capturing', 'removing'] as const;
const CLEANUP_PARTS = ['process', 'worktree', 'branch'] as const;
const cleanupPart = (x: unknown) => oneOf(x, CLEANUP_PARTS);
const regenerableNames = (x: unknown) => strArr(x, 100, 256);
const atLeastZero = (x: unknown) => int(x, 0);
function cleanup(v: unknown): Obj {
  const i = obj(v, CLEANUP_KEYS);
  oneOf(i.phase, CLEANUP_PHASES);
  arr(i.remaining, Infinity, cleanupPart);
  if (i.stage !== null) oneOf(i.stage, CLEANUP_STAGES);
  int(i.failures, 0);
  timeOrNull(i.nextAttemptAt);
  strOrNull(i.lastError, 2000);
  bool(i.needsAttention);
  arr(i.holders, 50, holder);
  bool(i.deleteBranch);
  strOrNull(i.fingerprint, 128);
  strOrNull(i.branchOutcome, 500);
  isoTime(i.requestedAt);
  isoTime(i.updatedAt);
  optional(i, 'regenerable', regenerableNames);
  optional(i, 'archiveLimitBytes', atLeastZero);
  optional(i, 'dropUnarchivable', bool);
  optional(i, 'awaitingConsent', bool);
  optional(i, 'awaitingRetry', bool);
  optional(i, 'teardownDone', bool);
  optional(i, 'teardownSkipped', bool);
  return i;
}

const TALLY_KEYS = keys('files', 'bytes');
function tally(v: unknown): Obj {
  const i = obj(v, TALLY_KEYS);
  int(i.files, 0);
  num(i.bytes, 0);
  return i;
}
const REGENERABLE_KEYS = keys('files', 'bytes', 'roots');
function regenerable(v: unknown): Obj {
  const i = obj(v, REGENERABLE_KEYS);
  int(i.files, 0);
  num(i.bytes, 0);
  strArr(i.roots, 50, 4096);
  return i;
}
const LOST_KEYS = keys('path', 'bytes', 'why');
const LOST_WHY = ['too-big', 'unreadable'] as const;
function lost(v: unknown): Obj {
  const i = obj(v, LOST_KEYS);
  str(i.path, 4096);
  num(i.bytes, 0);
  oneOf(i.why, LOST_WHY);
  return i;
}
const SUMMARY_KEYS = keys('captured', 'archived', 'emptyDirs', 'regenerable', 'lost', 'lostCount', 'nested', 'keptGitDirs', 'keptCommits');
const keptGitDirs = (x: unknown) => strArr(x, 200, 4096);
function evidenceSummary(v: unknown): Obj {
  const i = obj(v, SUMMARY_KEYS);
  tally(i.captured);
  tally(i.archived);
  int(i.emptyDirs, 0);
  regenerable(i.regenerable);
  arr(i.lost, 200, lost);
  int(i.lostCount, 0);
  strArr(i.nested, 200, 4096);
  optional(i, 'keptGitDirs', keptGitDirs);
  int(i.keptCommits, 0);
  return i;
}

const EVIDENCE_KEYS = keys('patch', 'snapshotRef', 'headSha', 'capturedAt', 'snapshotSha', 'archive', 'inventory', 'summary');
const path4096OrNull = (x: unknown) => strOrNull(x, 4096);
const summaryOrNull = (x: unknown) => nullable(x, evidenceSummary);
function evidence(v: unknown): Obj {
  const i = obj(v, EVIDENCE_KEYS);
  strOrNull(i.patch, 4096);
  strOrNull(i.snapshotRef, 300);
  shaOrNull(i.headSha);
  timeOrNull(i.capturedAt);
  optional(i, 'snapshotSha', shaOrNull);
  optional(i, 'archive', path4096OrNull);
  optional(i, 'inventory', path4096OrNull);
  optional(i, 'summary', summaryOrNull);
  return i;
}

const SETTINGS_KEYS = keys('stopGraceMs', 'waitingPattern', 'idleSeconds', 'resumeArgs', 'secretEnvNames', 'autoRestart', 'recoveryLimit', 'endLeftoversOnExit', 'worktree', 'checkCommand', 'typedPrompt');
const checkCommand = (x: unknown) => strOrNull(x, 8192);
const typedPrompt = (x: unknown) => str(x, 8192);
function settings(v: unknown): Obj {
  const i = obj(v, SETTINGS_KEYS);
  int(i.stopGraceMs, 0, 600_000);
  strOrNull(i.waitingPattern, 500);
  numOrNull(i.idleSeconds, 0, 86_400);
  if (i.resumeArgs !== null) strArr(i.resumeArgs, 64, 4096);
  strArr(i.secretEnvNames, 64, 256);
  bool(i.autoRestart);
  int(i.recoveryLimit, 0, 100);
  optional(i, 'endLeftoversOnExit', bool);
  optional(i, 'worktree', worktreeSettings);
  optional(i, 'checkCommand', checkCommand);
  optional(i, 'typedPrompt', typedPrompt);
  return i;
}

const WORKTREE_SETTINGS_KEYS = keys('copy', 'link', 'setup', 'setupTimeoutSeconds', 'teardown');
function worktreeSettings(v: unknown): Obj {
  const i = obj(v, WORKTREE_SETTINGS_KEYS);
  strArr(i.copy, 200, 1024);
  strArr(i.link, 200, 1024);
  strOrNull(i.setup, 8192);
  int(i.setupTimeoutSeconds, 1, 86_400);
  strOrNull(i.teardown, 8192);
  return i;
}

const LANDING_KEYS = keys('kind', 'into', 'commit', 'url', 'at', 'branchHead');
const LANDING_KINDS = ['merge', 'squash', 'rebase', 'ff', 'apply', 'pr'] as const;
function landing(v: unknown): Obj {
  const i = obj(v, LANDING_KEYS);
  oneOf(i.kind, LANDING_KINDS);
  str(i.into, 4096);
  shaOrNull(i.commit);
  strOrNull(i.url, 2000);
  isoTime(i.at);
  optional(i, 'branchHead', shaOrNull);
  return i;
}

const GROUP_KEYS = keys('id', 'title', 'index', 'size');
function group(v: unknown): Obj {
  const i = obj(v, GROUP_KEYS);
  strMatch(i.id, JOB_ID_PATTERN);
  str(i.title, 500);
  int(i.index, 1, 16);
  int(i.size, 1, 16);
  return i;
}

const CHECK_KEYS = keys('state', 'exitCode', 'durationMs', 'at', 'summary', 'runner');
const CHECK_STATES = ['queued', 'running', 'passed', 'failed'] as const;
const CHECK_RUNNER_KEYS = keys('pid', 'startTime', 'bootId');
function checkRunner(v: unknown): Obj {
  const i = obj(v, CHECK_RUNNER_KEYS);
  int(i.pid, 1);
  int(i.startTime, 0);
  str(i.bootId, 64);
  return i;
}
const runnerOrNull = (x: unknown) => nullable(x, checkRunner);
function check(v: unknown): Obj {
  const i = obj(v, CHECK_KEYS);
  oneOf(i.state, CHECK_STATES);
  intOrNull(i.exitCode);
  intOrNull(i.durationMs, 0);
  isoTime(i.at);
  str(i.summary, 4000);
  optional(i, 'runner', runnerOrNull);
  return i;
}

const USAGE_KEYS = keys('cpuPercent', 'rssBytes', 'diskBytes', 'outputBytes', 'tokensIn', 'tokensOut', 'costUsd', 'sampledAt');
const costOrNull = (x: unknown) => numOrNull(x, 0);
function usage(v: unknown): Obj {
  const i = obj(v, USAGE_KEYS);
  numOrNull(i.cpuPercent, 0);
  intOrNull(i.rssBytes, 0);
  intOrNull(i.diskBytes, 0);
  intOrNull(i.outputBytes, 0);
  intOrNull(i.tokensIn, 0);
  intOrNull(i.tokensOut, 0);
  optional(i, 'costUsd', costOrNull);
  isoTime(i.sampledAt);
  return i;
}

const SETUP_KEYS = keys('ports', 'state', 'exitCode');
const SETUP_STATES = ['none', 'running', 'done', 'failed'] as const;
const port = (x: unknown) => int(x, 1, 65535);
function setup(v: unknown): Obj {
  const i = obj(v, SETUP_KEYS);
  arr(i.ports, 64, port);
  oneOf(i.state, SETUP_STATES);
  intOrNull(i.exitCode);
  return i;
}

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
  if (recordClaimProblem(i as unknown as ClaimingRecord)) fail();
  return i;
}

/** Every object's known keys, by schema name: the agreement test compares each with the zod schema's shape. */
export const KNOWN_KEYS: Readonly<Record<string, ReadonlySet<string>>> = {
  JobRecordSchema: JOB_RECORD_KEYS,
  LifecycleSchema: LIFECYCLE_KEYS,
  ExecutionSchema: EXECUTION_KEYS,
  LaunchSchema: LAUNCH_KEYS,
  HolderSchema: HOLDER_KEYS,
  LeftoverSchema: LEFTOVER_KEYS,
  CleanupSchema: CLEANUP_KEYS,
  EvidenceSchema: EVIDENCE_KEYS,
  EvidenceSummarySchema: SUMMARY_KEYS,
  LostEntrySchema: LOST_KEYS,
  JobSettingsSchema: SETTINGS_KEYS,
  WorktreeSettingsSchema: WORKTREE_SETTINGS_KEYS,
  LandingSchema: LANDING_KEYS,
  GroupSchema: GROUP_KEYS,
  CheckSchema: CHECK_KEYS,
  UsageSchema: USAGE_KEYS,
  SetupSchema: SETUP_KEYS,
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
