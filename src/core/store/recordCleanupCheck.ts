/**
 * The record check's parts about the cleanup (recordCheck.ts): its progress,
 * the processes that held the worktree, and the evidence kept of the work.
 */
import { arr, bool, int, isoTime, keys, nullable, num, obj, type Obj, oneOf, optional, shaOrNull, str, strArr, strOrNull, timeOrNull } from './fastCheck';

const HOLDER_KEYS = keys('pid', 'command');
function holder(v: unknown): Obj {
  const i = obj(v, HOLDER_KEYS);
  int(i.pid, 1);
  str(i.command, 500);
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
export function cleanup(v: unknown): Obj {
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
const SUMMARY_KEYS = keys('captured', 'archived', 'emptyDirs', 'regenerable', 'lost', 'lostCount', 'nested', 'keptGitDirs', 'keptCommits', 'foreignWorktrees', 'unstorable');
const keptGitDirs = (x: unknown) => strArr(x, 200, 4096);
const foreignWorktrees = (x: unknown) => strArr(x, 200, 8192);
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
  optional(i, 'foreignWorktrees', foreignWorktrees);
  optional(i, 'unstorable', atLeastZero);
  return i;
}

const EVIDENCE_KEYS = keys('patch', 'snapshotRef', 'headSha', 'capturedAt', 'snapshotSha', 'archive', 'inventory', 'summary');
const path4096OrNull = (x: unknown) => strOrNull(x, 4096);
const summaryOrNull = (x: unknown) => nullable(x, evidenceSummary);
export function evidence(v: unknown): Obj {
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

/** This file's objects' known keys, by schema name (KNOWN_KEYS in recordCheck.ts gathers them). */
export const CLEANUP_KNOWN_KEYS = {
  HolderSchema: HOLDER_KEYS,
  CleanupSchema: CLEANUP_KEYS,
  EvidenceSchema: EVIDENCE_KEYS,
  EvidenceSummarySchema: SUMMARY_KEYS,
  LostEntrySchema: LOST_KEYS,
};
