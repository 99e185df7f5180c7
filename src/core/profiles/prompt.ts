/**
 * Prompts are data. A prompt is checked before anything is created for it:
 * its length, and that it cannot become an option of the agent
 * (`--prompt=--dangerously-skip-permissions` must not reach `claude` as a flag).
 */
import { usageError } from '../common/errors';
import { assertTextLength } from '../common/textLimit';
import { PROMPT_PLACEHOLDER } from './profile';

/** The longest start prompt: it travels as one argv word. */
export const MAX_PROMPT_CHARS = 8192;

/**
 * Whether `prompt` would land where the agent could read it as an option: it
 * starts with `-` and some argument is exactly `{prompt}` with no `--` (end of
 * options) before it. `{prompt}` inside an argument (`--message={prompt}`) is safe.
 */
export function promptReadAsOption(args: readonly string[], prompt: string): boolean {
  if (!prompt.startsWith('-')) return false;
  const at = args.indexOf(PROMPT_PLACEHOLDER);
  return at >= 0 && !args.slice(0, at).includes('--');
}

/** Throws the one sentence the person sees when `prompt` cannot be used with profile `name`. */
export function assertUsablePrompt(name: string, args: readonly string[], prompt: string | undefined): void {
  if (prompt === undefined) return;
  assertTextLength(prompt, MAX_PROMPT_CHARS);
  if (promptReadAsOption(args, prompt)) {
    throw usageError(
      `The prompt starts with '-', so profile '${name}' would pass it to the agent as an option; start it with another character, or put "--" before {prompt} in the profile's args.`,
      'PROMPT_IS_OPTION',
    );
  }
}

/**
 * The prompt the worker types into the agent (`settings.typedPrompt`, worker/typedPrompt.ts): one
 * given that the argv does not carry, for a start and a retry alike. A blank one is no prompt.
 */
export function promptToType(prompt: string | undefined, inArgv: boolean): string | undefined {
  return prompt === undefined || prompt.trim() === '' || inArgv ? undefined : prompt;
}
