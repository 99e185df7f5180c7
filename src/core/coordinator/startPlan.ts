/**
 * Turning a start request into what the job record needs: the argv, the
 * profile's per-job settings and the agent's environment. Pure apart from
 * reading the profile setting, so mistakes surface before anything is created.
 */
import type { Group, JobSettings } from '../store/schema';
import { usageError } from '../common/errors';
import { assertTextLength } from '../common/textLimit';
import { assertUsablePrompt, builtinForProgram, expandArgs, Profile, PROMPT_PLACEHOLDER, promptToType, resolveProfile } from '../profiles';
import type { CoordinatorSettings } from './settings';

export interface StartRequest {
  /** Any folder inside the repository (its main working tree is used). */
  repo: string;
  title?: string;
  /** Profile name; default `defaultProfile` unless `command` is given. */
  profile?: string;
  /** An explicit argv instead of the profile's command (`paddock start -- CMD ARGS`). */
  command?: string[];
  /** Branch point of the agent's branch; default the repository's HEAD. */
  base?: string;
  /** Replaces `{prompt}` in the profile's args. */
  prompt?: string;
  /** Add the profile's auto-approve arguments: the agent acts without asking. Refused when the profile has none. */
  autoApprove?: boolean;
  /** The attempt's place in a group of attempts at one task (`startAttempts`). */
  group?: Group;
}

export interface StartPlan {
  title: string;
  profileName: string | null;
  command: string[];
  base: string;
  /** Variables added to the agent's environment (values stay in memory; names go to the record). */
  env: Record<string, string>;
  settings: JobSettings;
  /** Started with the profile's auto-approve arguments. */
  autoApprove: boolean;
}

const MAX_TITLE = 120;
/** The record's limits on an explicit command (see schema.ts), said plainly before the record refuses them. */
const MAX_ARGUMENT_CHARS = 8192;
const MAX_ARGUMENTS = 256;
const MAX_BASE_CHARS = 300;

function assertCommand(command: readonly string[]): void {
  if (command.length > MAX_ARGUMENTS) throw usageError(`The command has ${command.length} arguments; the limit is ${MAX_ARGUMENTS}.`, 'TOO_LONG');
  command.forEach((arg, i) => assertTextLength(arg, MAX_ARGUMENT_CHARS, i === 0 ? 'command' : `command's argument ${i}`));
}

function titleFrom(request: StartRequest, command: string[]): string {
  const given = request.title?.trim();
  if (given) return given.slice(0, 500);
  const source = request.prompt?.trim() || command.join(' ');
  const line = source.split('\n')[0];
  return line.length > MAX_TITLE ? `${line.slice(0, MAX_TITLE - 1)}…` : line;
}

export function planStart(request: StartRequest, settings: CoordinatorSettings, env: NodeJS.ProcessEnv): StartPlan {
  if (request.command !== undefined && request.command.length === 0) throw usageError('The command after -- is empty.');
  // `start -- claude …` is Claude Code all the same: matched by the program's name, it gets the profile's signals and settings.
  const matched = request.command && !request.profile ? builtinForProgram(request.command[0], env) : null;
  const profileName = request.command ? (request.profile ?? matched) : (request.profile ?? settings.defaultProfile);
  const profile: Profile | null = profileName === null ? null : resolveProfile(profileName, settings.profiles, env);
  if (request.command) {
    assertCommand(request.command);
    // Typed in, never an argument: only its length matters.
    assertUsablePrompt(profileName ?? request.command[0], [], request.prompt);
    assertPromptTypable(request, env);
  } else assertUsablePrompt(profileName!, profile!.args, request.prompt);
  if (request.base !== undefined) assertTextLength(request.base, MAX_BASE_CHARS, 'base');
  const autoApprove = request.autoApprove === true;
  if (autoApprove && !profile?.autoApprove) {
    throw usageError(
      profileName === null
        ? `Auto-approve needs a profile that knows the agent's flag; '${request.command![0]}' matches none, so put its own flag in the command.`
        : `Profile '${profileName}' has no auto-approve flag (set "autoApprove": ["--flag"] in its paddock.profiles entry).`,
    );
  }
  // Signals (an explicit command only when matched by its name) and auto-approve go first, for every start and retry.
  const signalArgs = !request.command || matched ? (profile?.signalArgs ?? []) : [];
  const leadingArgs = [...signalArgs, ...(autoApprove ? profile!.autoApprove! : [])];
  const command = request.command
    ? [request.command[0], ...leadingArgs, ...request.command.slice(1)]
    : [profile!.command, ...leadingArgs, ...expandArgs(profile!.args, request.prompt)];
  const typedPrompt = promptToType(request.prompt, argvCarriesPrompt(request, profile));
  return {
    title: titleFrom(request, command),
    profileName,
    command,
    base: request.base ?? 'HEAD',
    env: profile?.env ?? {},
    settings: {
      stopGraceMs: Math.round(settings.stopGraceSeconds * 1000),
      waitingPattern: profile?.waitingPattern ?? null,
      idleSeconds: profile?.idleSeconds ?? null,
      // An explicit command has no known way to resume: a retry runs it again as it was.
      resumeArgs: request.command || !profile?.resumeArgs ? null : [...leadingArgs, ...profile.resumeArgs],
      secretEnvNames: profile?.secretEnv ?? [],
      autoRestart: settings.autoRestart,
      recoveryLimit: settings.recoveryLimit,
      endLeftoversOnExit: settings.endLeftoversOnExit,
      ...(settings.checkCommand ? { checkCommand: settings.checkCommand } : {}),
      ...(typedPrompt !== undefined ? { typedPrompt } : {}),
    },
    autoApprove,
  };
}

/**
 * `--prompt` with `-- claude …` (or another agent whose profile passes the prompt as an argument):
 * typed into it, the prompt would land on its first screen — Claude Code's question whether to trust
 * the new worktree, which Enter answers yes. Refused: such a program takes it in the command.
 */
function assertPromptTypable(request: StartRequest, env: NodeJS.ProcessEnv): void {
  if (request.prompt === undefined || request.prompt.trim() === '' || !request.command) return;
  const agent = builtinForProgram(request.command[0], env);
  if (agent === null || !resolveProfile(agent, undefined, env).args.some((a) => a.includes(PROMPT_PLACEHOLDER))) return;
  throw usageError(`'${request.command[0]}' takes its prompt on its command line: put it in the command (after its own arguments and --), not in --prompt.`, 'PROMPT_IN_COMMAND');
}

/**
 * Whether the start's argv carries the prompt: not for an explicit command, nor a profile whose args
 * have no `{prompt}` (aider, the shell). The worker types such a prompt in once the agent asks for it
 * (worker/typedPrompt.ts); dropped, the agent ran without its task while its title said it had one.
 */
function argvCarriesPrompt(request: StartRequest, profile: Profile | null): boolean {
  return request.command === undefined && profile !== null && profile.args.some((a) => a.includes(PROMPT_PLACEHOLDER));
}

/**
 * The argv of a retry: the program with the profile's resume arguments (their
 * `{prompt}` replaced by `prompt`, or dropped with its flag without one), or
 * the same argv when the profile has no way to resume.
 */
export function resumeCommand(command: readonly string[], resumeArgs: readonly string[] | null, prompt?: string): string[] {
  return resumeArgs === null ? [...command] : [command[0], ...expandArgs(resumeArgs, prompt)];
}

/** Whether a retry's argv can carry a prompt (its resume arguments have a `{prompt}`). */
export function resumeTakesPrompt(resumeArgs: readonly string[] | null): boolean {
  return resumeArgs !== null && resumeArgs.some((a) => a.includes(PROMPT_PLACEHOLDER));
}
