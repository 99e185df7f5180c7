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
 * Output as zod's: a new object per level, keys in the schema's order, an
 * absent optional field left absent, unknown keys never copied.
 */
import type { JobRecord } from './schema';
import { JOB_ID_PATTERN, SCHEMA_VERSION } from './schema';

import { arr, bool, fail, int, isoTime, keys, nullable, num, obj, type Obj, oneOf, optional, REJECT, SHA, str, strMatch } from './fastCheck';

const LIFECYCLE_STATES = ['queued', 'starting', 'running', 'waiting', 'cancelling', 'completed', 'failed', 'cancelled', 'orphaned'] as const;

const LIFECYCLE_KEYS = keys('state', 'generation', 'exitCode', 'signal', 'pid', 'workerPid', 'startedAt', 'endedAt', 'detail', 'lastActivityAt', 'waitingReason');
function lifecycle(v: unknown): Obj {
  const i = obj(v, LIFECYCLE_KEYS);
  return {
    state: oneOf(i.state, LIFECYCLE_STATES),
    generation: int(i.generation, 1),
    exitCode: nullable(i.exitCode, (x) => int(x)),
    signal: nullable(i.signal, (x) => str(x, 32)),
    pid: nullable(i.pid, (x) => int(x, 1)),
    workerPid: nullable(i.workerPid, (x) => int(x, 1)),
    startedAt: nullable(i.startedAt, isoTime),
    endedAt: nullable(i.endedAt, isoTime),
    detail: nullable(i.detail, (x) => str(x, 2000)),
    lastActivityAt: nullable(i.lastActivityAt, isoTime),
    waitingReason: nullable(i.waitingReason, (x) => oneOf(x, ['signal', 'pattern', 'idle'] as const)),
  };
}

const EXECUTION_KEYS = keys('ownerToken', 'generation', 'pid', 'startTime', 'bootId', 'socketPath', 'socketToken', 'claimedAt');
function execution(v: unknown): Obj {
  const i = obj(v, EXECUTION_KEYS);
  return {
    ownerToken: str(i.ownerToken, 128, 16),
    generation: int(i.generation, 1),
    pid: int(i.pid, 1),
    startTime: int(i.startTime, 0),
    bootId: str(i.bootId, 64),
    socketPath: str(i.socketPath, 200, 1),
    socketToken: str(i.socketToken, 128, 16),
    claimedAt: isoTime(i.claimedAt),
  };
}

const LAUNCH_KEYS = keys('workerPid', 'startTime', 'bootId', 'generation', 'launchedAt');
function launch(v: unknown): Obj {
  const i = obj(v, LAUNCH_KEYS);
  return {
    workerPid: int(i.workerPid, 1),
    startTime: int(i.startTime, 0),
    bootId: str(i.bootId, 64),
    generation: int(i.generation, 1),
    launchedAt: isoTime(i.launchedAt),
  };
}

const HOLDER_KEYS = keys('pid', 'command');
function holder(v: unknown): Obj {
  const i = obj(v, HOLDER_KEYS);
  return { pid: int(i.pid, 1), command: str(i.command, 500) };
}

const LEFTOVER_KEYS = keys('pid', 'command', 'startTime', 'bootId');

function leftover(v: unknown): Obj {
  const i = obj(v, LEFTOVER_KEYS);
  const out: Obj = { pid: int(i.pid, 1), command: str(i.command, 500) };
  optional(out, i, 'startTime', (x) => int(x, 0));
  optional(out, i, 'bootId', (x) => str(x, 64));
  return out;
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
  'teardownDone',
);
function cleanup(v: unknown): Obj {
  const i = obj(v, CLEANUP_KEYS);
  const out: Obj = {
    phase: oneOf(i.phase, ['requested', 'terminating', 'capturing', 'removing', 'complete', 'incomplete'] as const),
    remaining: arr(i.remaining, Infinity, (x) => oneOf(x, ['process', 'worktree', 'branch'] as const)),
    stage: nullable(i.stage, (x) => oneOf(x, ['terminating', 'capturing', 'removing'] as const)),
    failures: int(i.failures, 0),
    nextAttemptAt: nullable(i.nextAttemptAt, isoTime),
    lastError: nullable(i.lastError, (x) => str(x, 2000)),
    needsAttention: bool(i.needsAttention),
    holders: arr(i.holders, 50, holder),
    deleteBranch: bool(i.deleteBranch),
    fingerprint: nullable(i.fingerprint, (x) => str(x, 128)),
    branchOutcome: nullable(i.branchOutcome, (x) => str(x, 500)),
    requestedAt: isoTime(i.requestedAt),
    updatedAt: isoTime(i.updatedAt),
  };
  optional(out, i, 'regenerable', (x) => arr(x, 100, (g) => str(g, 256)));
  optional(out, i, 'archiveLimitBytes', (x) => int(x, 0));
  optional(out, i, 'dropUnarchivable', bool);
  optional(out, i, 'awaitingConsent', bool);
  optional(out, i, 'teardownDone', bool);
  return out;
}

const TALLY_KEYS = keys('files', 'bytes');
const tally = (v: unknown): Obj => {
  const i = obj(v, TALLY_KEYS);
  return { files: int(i.files, 0), bytes: num(i.bytes, 0) };
};
const REGENERABLE_KEYS = keys('files', 'bytes', 'roots');
const LOST_KEYS = keys('path', 'bytes', 'why');
const SUMMARY_KEYS = keys('captured', 'archived', 'emptyDirs', 'regenerable', 'lost', 'lostCount', 'nested', 'keptCommits');
function evidenceSummary(v: unknown): Obj {
  const i = obj(v, SUMMARY_KEYS);
  const r = obj(i.regenerable, REGENERABLE_KEYS);
  return {
    captured: tally(i.captured),
    archived: tally(i.archived),
    emptyDirs: int(i.emptyDirs, 0),
    regenerable: { files: int(r.files, 0), bytes: num(r.bytes, 0), roots: arr(r.roots, 50, (x) => str(x, 4096)) },
    lost: arr(i.lost, 200, (x) => {
      const l = obj(x, LOST_KEYS);
      return { path: str(l.path, 4096), bytes: num(l.bytes, 0), why: oneOf(l.why, ['too-big', 'unreadable'] as const) };
    }),
    lostCount: int(i.lostCount, 0),
    nested: arr(i.nested, 200, (x) => str(x, 4096)),
    keptCommits: int(i.keptCommits, 0),
  };
}

const EVIDENCE_KEYS = keys('patch', 'snapshotRef', 'headSha', 'capturedAt', 'snapshotSha', 'archive', 'inventory', 'summary');
function evidence(v: unknown): Obj {
  const i = obj(v, EVIDENCE_KEYS);
  const out: Obj = {
    patch: nullable(i.patch, (x) => str(x, 4096)),
    snapshotRef: nullable(i.snapshotRef, (x) => str(x, 300)),
    headSha: nullable(i.headSha, (x) => strMatch(x, SHA)),
    capturedAt: nullable(i.capturedAt, isoTime),
  };
  optional(out, i, 'snapshotSha', (x) => nullable(x, (s) => strMatch(s, SHA)));
  optional(out, i, 'archive', (x) => nullable(x, (s) => str(s, 4096)));
  optional(out, i, 'inventory', (x) => nullable(x, (s) => str(s, 4096)));
  optional(out, i, 'summary', (x) => nullable(x, evidenceSummary));
  return out;
}

const SETTINGS_KEYS = keys('stopGraceMs', 'waitingPattern', 'idleSeconds', 'resumeArgs', 'secretEnvNames', 'autoRestart', 'recoveryLimit', 'endLeftoversOnExit', 'worktree', 'checkCommand');
function settings(v: unknown): Obj {
  const i = obj(v, SETTINGS_KEYS);
  const out: Obj = {
    stopGraceMs: int(i.stopGraceMs, 0, 600_000),
    waitingPattern: nullable(i.waitingPattern, (x) => str(x, 500)),
    idleSeconds: nullable(i.idleSeconds, (x) => num(x, 0, 86_400)),
    resumeArgs: nullable(i.resumeArgs, (x) => arr(x, 64, (a) => str(a, 4096))),
    secretEnvNames: arr(i.secretEnvNames, 64, (x) => str(x, 256)),
    autoRestart: bool(i.autoRestart),
    recoveryLimit: int(i.recoveryLimit, 0, 100),
  };
  optional(out, i, 'endLeftoversOnExit', bool);
  optional(out, i, 'worktree', worktreeSettings);
  optional(out, i, 'checkCommand', (x) => nullable(x, (y) => str(y, 8192)));
  return out;
}

const WORKTREE_SETTINGS_KEYS = keys('copy', 'link', 'setup', 'setupTimeoutSeconds', 'teardown');
function worktreeSettings(v: unknown): Obj {
  const i = obj(v, WORKTREE_SETTINGS_KEYS);
  return {
    copy: arr(i.copy, 200, (x) => str(x, 1024)),
    link: arr(i.link, 200, (x) => str(x, 1024)),
    setup: nullable(i.setup, (x) => str(x, 8192)),
    setupTimeoutSeconds: int(i.setupTimeoutSeconds, 1, 86_400),
    teardown: nullable(i.teardown, (x) => str(x, 8192)),
  };
}

const LANDING_KEYS = keys('kind', 'into', 'commit', 'url', 'at', 'branchHead');
function landing(v: unknown): Obj {
  const i = obj(v, LANDING_KEYS);
  const out: Obj = {
    kind: oneOf(i.kind, ['merge', 'squash', 'rebase', 'ff', 'apply', 'pr'] as const),
    into: str(i.into, 4096),
    commit: nullable(i.commit, (x) => strMatch(x, SHA)),
    url: nullable(i.url, (x) => str(x, 2000)),
    at: isoTime(i.at),
  };
  optional(out, i, 'branchHead', (x) => nullable(x, (y) => strMatch(y, SHA)));
  return out;
}

const GROUP_KEYS = keys('id', 'title', 'index', 'size');
function group(v: unknown): Obj {
  const i = obj(v, GROUP_KEYS);
  return { id: strMatch(i.id, JOB_ID_PATTERN), title: str(i.title, 500), index: int(i.index, 1, 16), size: int(i.size, 1, 16) };
}

const CHECK_KEYS = keys('state', 'exitCode', 'durationMs', 'at', 'summary', 'runner');
const CHECK_RUNNER_KEYS = keys('pid', 'startTime', 'bootId');
function checkRunner(v: unknown): Obj {
  const i = obj(v, CHECK_RUNNER_KEYS);
  return { pid: int(i.pid, 1), startTime: int(i.startTime, 0), bootId: str(i.bootId, 64) };
}
function check(v: unknown): Obj {
  const i = obj(v, CHECK_KEYS);
  const out: Obj = {
    state: oneOf(i.state, ['queued', 'running', 'passed', 'failed'] as const),
    exitCode: nullable(i.exitCode, (x) => int(x)),
    durationMs: nullable(i.durationMs, (x) => int(x, 0)),
    at: isoTime(i.at),
    summary: str(i.summary, 4000),
  };
  optional(out, i, 'runner', (x) => nullable(x, checkRunner));
  return out;
}

const USAGE_KEYS = keys('cpuPercent', 'rssBytes', 'diskBytes', 'outputBytes', 'tokensIn', 'tokensOut', 'costUsd', 'sampledAt');
function usage(v: unknown): Obj {
  const i = obj(v, USAGE_KEYS);
  const count = (x: unknown) => nullable(x, (n) => int(n, 0));
  const out: Obj = {
    cpuPercent: nullable(i.cpuPercent, (x) => num(x, 0)),
    rssBytes: count(i.rssBytes),
    diskBytes: count(i.diskBytes),
    outputBytes: count(i.outputBytes),
    tokensIn: count(i.tokensIn),
    tokensOut: count(i.tokensOut),
  };
  optional(out, i, 'costUsd', (x) => nullable(x, (n) => num(n, 0)));
  out.sampledAt = isoTime(i.sampledAt);
  return out;
}

const SETUP_KEYS = keys('ports', 'state', 'exitCode');
function setup(v: unknown): Obj {
  const i = obj(v, SETUP_KEYS);
  return {
    ports: arr(i.ports, 64, (x) => int(x, 1, 65535)),
    state: oneOf(i.state, ['none', 'running', 'done', 'failed'] as const),
    exitCode: nullable(i.exitCode, (x) => int(x)),
  };
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

function jobRecord(v: unknown): Obj {
  const i = obj(v, JOB_RECORD_KEYS);
  if (i.schemaVersion !== SCHEMA_VERSION) fail();
  const out: Obj = {
    schemaVersion: SCHEMA_VERSION,
    id: strMatch(i.id, JOB_ID_PATTERN),
    title: str(i.title, 500),
    repo: str(i.repo, 4096, 1),
    worktree: nullable(i.worktree, (x) => str(x, 4096)),
    branch: nullable(i.branch, (x) => str(x, 300)),
    base: nullable(i.base, (x) => str(x, 300)),
    baseSha: nullable(i.baseSha, (x) => strMatch(x, SHA)),
    profile: nullable(i.profile, (x) => str(x, 100)),
    command: arr(i.command, 256, (x) => str(x, 8192), 1),
    cwd: str(i.cwd, 4096, 1),
    envNames: arr(i.envNames, 256, (x) => str(x, 256)),
    createdAt: isoTime(i.createdAt),
    settings: settings(i.settings),
    lifecycle: lifecycle(i.lifecycle),
    launch: nullable(i.launch, launch),
    execution: nullable(i.execution, execution),
    recoveries: int(i.recoveries, 0),
    cleanup: nullable(i.cleanup, cleanup),
    evidence: nullable(i.evidence, evidence),
  };
  optional(out, i, 'landing', (x) => nullable(x, landing));
  optional(out, i, 'group', (x) => nullable(x, group));
  optional(out, i, 'check', (x) => nullable(x, check));
  optional(out, i, 'usage', (x) => nullable(x, usage));
  optional(out, i, 'setup', (x) => nullable(x, setup));
  optional(out, i, 'autoApprove', bool);
  optional(out, i, 'leftovers', (x) => arr(x, 50, leftover));
  return out;
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
 * The record when it passes every check of `JobRecordSchema` (a copy, as zod
 * returns it); undefined when it does not, or when it has a field this check
 * does not know — then zod must decide.
 */
export function checkJobRecord(value: unknown): JobRecord | undefined {
  try {
    return jobRecord(value) as JobRecord;
  } catch (err) {
    if (err === REJECT) return undefined;
    throw err;
  }
}
