/** The record check's part about the job's settings, the worktree's among them (recordCheck.ts). */
import { bool, int, keys, numOrNull, obj, type Obj, optional, str, strArr, strOrNull } from './fastCheck';

const SETTINGS_KEYS = keys('stopGraceMs', 'waitingPattern', 'idleSeconds', 'resumeArgs', 'secretEnvNames', 'autoRestart', 'recoveryLimit', 'endLeftoversOnExit', 'worktree', 'checkCommand', 'typedPrompt', 'typedPromptGeneration');
const checkCommand = (x: unknown) => strOrNull(x, 8192);
const typedPrompt = (x: unknown) => str(x, 8192);
const generationNumber = (x: unknown) => int(x, 1);
export function settings(v: unknown): Obj {
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
  optional(i, 'typedPromptGeneration', generationNumber);
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

/** This file's objects' known keys, by schema name (KNOWN_KEYS in recordCheck.ts gathers them). */
export const SETTINGS_KNOWN_KEYS = {
  JobSettingsSchema: SETTINGS_KEYS,
  WorktreeSettingsSchema: WORKTREE_SETTINGS_KEYS,
};
