/**
 * The record check's parts about the agent's processes (recordCheck.ts): its
 * lifecycle, the launch of its worker, the worker's execution claim and the
 * processes it left running when it ended.
 */
import { LIFECYCLE_STATES } from './schema';
import { bool, int, intOrNull, isoTime, nullable, keys, obj, type Obj, oneOf, optional, str, strOrNull, timeOrNull } from './fastCheck';

const WAITING_REASONS = ['signal', 'pattern', 'idle'] as const;

const LIFECYCLE_KEYS = keys('state', 'generation', 'exitCode', 'signal', 'pid', 'workerPid', 'startedAt', 'endedAt', 'detail', 'lastActivityAt', 'waitingReason');
export function lifecycle(v: unknown): Obj {
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
export function execution(v: unknown): Obj {
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
export function launch(v: unknown): Obj {
  const i = obj(v, LAUNCH_KEYS);
  int(i.workerPid, 1);
  nullable(i.startTime, (x) => int(x, 0));
  str(i.bootId, 64);
  int(i.generation, 1);
  isoTime(i.launchedAt);
  return i;
}

const LEFTOVER_KEYS = keys('pid', 'command', 'startTime', 'bootId');
const startTime = (x: unknown) => int(x, 0);
const bootId = (x: unknown) => str(x, 64);
export function leftover(v: unknown): Obj {
  const i = obj(v, LEFTOVER_KEYS);
  int(i.pid, 1);
  str(i.command, 500);
  optional(i, 'startTime', startTime);
  optional(i, 'bootId', bootId);
  return i;
}

const ENDER_KEYS = keys('pid', 'startTime', 'bootId', 'gone');
export function leftoversEnder(v: unknown): Obj {
  const i = obj(v, ENDER_KEYS);
  int(i.pid, 1);
  int(i.startTime, 0);
  str(i.bootId, 64);
  optional(i, 'gone', bool);
  return i;
}

const FATE_KEYS = keys('count', 'outcome', 'survivors', 'generation');
const OUTCOMES = ['ended', 'stopped'] as const;
export function leftoversFate(v: unknown): Obj {
  const i = obj(v, FATE_KEYS);
  int(i.count, 0);
  optional(i, 'outcome', (x) => oneOf(x, OUTCOMES));
  optional(i, 'survivors', (x) => str(x, 2000));
  optional(i, 'generation', (x) => int(x, 1));
  return i;
}

const KEPT_KEYS = keys('branch', 'why', 'generation');
export function keptWorktree(v: unknown): Obj {
  const i = obj(v, KEPT_KEYS);
  str(i.branch, 500);
  str(i.why, 2000);
  int(i.generation, 1);
  return i;
}

/** This file's objects' known keys, by schema name (KNOWN_KEYS in recordCheck.ts gathers them). */
export const PROCESS_KNOWN_KEYS = {
  LifecycleSchema: LIFECYCLE_KEYS,
  ExecutionSchema: EXECUTION_KEYS,
  LaunchSchema: LAUNCH_KEYS,
  LeftoverSchema: LEFTOVER_KEYS,
  LeftoversEnderSchema: ENDER_KEYS,
  LeftoversFateSchema: FATE_KEYS,
  KeptWorktreeSchema: KEPT_KEYS,
};
