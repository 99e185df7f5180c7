/**
 * The record check's optional parts (recordCheck.ts), added to the record over
 * time: the landing, the group, the check, the usage figures and the setup.
 */
import { JOB_ID_PATTERN } from './schema';
import { arr, bool, int, intOrNull, isoTime, keys, nullable, numOrNull, obj, type Obj, oneOf, optional, shaOrNull, str, strMatch, strOrNull } from './fastCheck';

const LANDING_KEYS = keys('kind', 'into', 'commit', 'url', 'at', 'branchHead', 'foundLater');
const LANDING_KINDS = ['merge', 'squash', 'rebase', 'ff', 'apply', 'pr'] as const;
export function landing(v: unknown): Obj {
  const i = obj(v, LANDING_KEYS);
  oneOf(i.kind, LANDING_KINDS);
  str(i.into, 4096);
  shaOrNull(i.commit);
  strOrNull(i.url, 2000);
  isoTime(i.at);
  optional(i, 'branchHead', shaOrNull);
  optional(i, 'foundLater', bool);
  return i;
}

const GROUP_KEYS = keys('id', 'title', 'index', 'size');
export function group(v: unknown): Obj {
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
export function check(v: unknown): Obj {
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
export function usage(v: unknown): Obj {
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
export function setup(v: unknown): Obj {
  const i = obj(v, SETUP_KEYS);
  arr(i.ports, 64, port);
  oneOf(i.state, SETUP_STATES);
  intOrNull(i.exitCode);
  return i;
}

/** This file's objects' known keys, by schema name (KNOWN_KEYS in recordCheck.ts gathers them). */
export const OPTIONAL_PARTS_KNOWN_KEYS = {
  LandingSchema: LANDING_KEYS,
  GroupSchema: GROUP_KEYS,
  CheckSchema: CHECK_KEYS,
  UsageSchema: USAGE_KEYS,
  SetupSchema: SETUP_KEYS,
};
