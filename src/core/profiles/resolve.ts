/**
 * Turning a profile name (plus the person's overrides) into a concrete argv,
 * and checking that its program can run at all before a worktree is made for it.
 */
import { accessSync, constants, statSync } from 'node:fs';
import * as path from 'node:path';
import { failure, usageError } from '../common/errors';
import { builtinForProgram, builtinProfiles, PROFILE_DEFAULTS } from './builtins';
import { PROMPT_PLACEHOLDER, Profile, ProfileOverrides, ProfileOverridesSchema, ProfileSchema } from './profile';

/** Every profile name known: built-ins plus the person's own. */
export function profileNames(overrides: unknown, env: NodeJS.ProcessEnv): string[] {
  return [...new Set([...Object.keys(builtinProfiles(env)), ...Object.keys(parseOverrides(overrides))])].sort();
}

function parseOverrides(overrides: unknown): ProfileOverrides {
  if (overrides === undefined || overrides === null) return {};
  const parsed = ProfileOverridesSchema.safeParse(overrides);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue.path.length ? ` at ${issue.path.join('.')}` : '';
    throw usageError(`The profiles setting is invalid${where}: ${issue.message}.`);
  }
  return parsed.data;
}

/** The profile `name`: a built-in merged with its override, or a profile defined entirely by the person. */
export function resolveProfile(name: string, overrides: unknown, env: NodeJS.ProcessEnv): Profile {
  const own = parseOverrides(overrides)[name];
  const builtin = builtinProfiles(env)[name];
  if (!builtin && !own) {
    throw usageError(`Unknown profile '${name}' (known: ${profileNames(overrides, env).join(', ')}).`);
  }
  if (!builtin && own?.command === undefined) {
    throw usageError(`Profile '${name}' has no command.`);
  }
  const merged = { ...PROFILE_DEFAULTS, ...builtin, ...own };
  const checked = ProfileSchema.safeParse(merged);
  if (!checked.success) throw usageError(`Profile '${name}' is invalid: ${checked.error.issues[0].message}.`);
  if (checked.data.waitingPattern !== null) {
    try {
      new RegExp(checked.data.waitingPattern);
    } catch {
      throw usageError(`Profile '${name}' has an invalid waiting pattern.`);
    }
  }
  return checked.data;
}

/**
 * Substitutes the prompt. Without a prompt, an argument holding the placeholder
 * is dropped together with a flag right before it (`--message {prompt}`).
 */
export function expandArgs(args: readonly string[], prompt: string | undefined): string[] {
  const out: string[] = [];
  for (const arg of args) {
    if (!arg.includes(PROMPT_PLACEHOLDER)) {
      out.push(arg);
    } else if (prompt !== undefined && prompt.length > 0) {
      out.push(arg.split(PROMPT_PLACEHOLDER).join(prompt));
    } else if (out.length > 0 && out[out.length - 1].startsWith('-')) {
      out.pop();
    }
  }
  return out;
}

function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The absolute path `program` runs as, or undefined when it is not on PATH (or not executable). */
export function findProgram(program: string, env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  if (program.includes('/')) {
    const abs = path.resolve(cwd, program);
    return isExecutableFile(abs) ? abs : undefined;
  }
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, program);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Throws the failure the person sees when `program` cannot be found. An agent CLI (claude, codex,
 * aider) is missing on every fresh machine: the sentence says what to do, and that the demo agent
 * runs without one.
 */
export function assertRunnable(program: string, env: NodeJS.ProcessEnv, cwd: string): void {
  if (findProgram(program, env, cwd) !== undefined) return;
  if (program.includes('/')) throw failure(`Command '${program}' does not exist or is not executable.`);
  if (builtinForProgram(program, env) !== null) {
    throw failure(`Command '${program}' is not on PATH; install it, or start the built-in demo agent (profile 'demo'), which needs no agent CLI.`);
  }
  throw failure(`Command '${program}' is not on PATH.`);
}
