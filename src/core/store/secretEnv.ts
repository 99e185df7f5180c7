/**
 * Which variables of an agent's environment hold secrets: the ones its profile
 * declares (`secretEnv`) and, whatever the profile says, every name shaped like
 * a credential. Computed from the environment the agent actually runs with, so
 * a key that reached it by any route is redacted from what Paddock persists.
 */
import { Redactor } from './redactor';

/** `*_KEY`, `*_TOKEN`, `*_SECRET`, `*PASSWORD*`, case-insensitive (ANTHROPIC_API_KEY, GH_TOKEN, DB_PASSWORD_FILE…). */
const SECRET_NAME = /(?:_KEY|_TOKEN|_SECRET)$|PASSWORD/i;

export function isSecretEnvName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** The declared names plus every credential-shaped name set in `env`, sorted and unique. */
export function secretEnvNames(env: NodeJS.ProcessEnv, declared: readonly string[] = []): string[] {
  const names = new Set(declared);
  for (const [name, value] of Object.entries(env)) if (typeof value === 'string' && isSecretEnvName(name)) names.add(name);
  return [...names].sort();
}

/**
 * The redaction of whatever a command run for an agent writes (the agent, its setup, its check, its
 * teardown): the values of its declared secrets and of every credential-named variable in the
 * environment it ran with. One rule, wherever the command runs (the worker, a cleanup, a check).
 */
export function redactorForCommandEnv(env: NodeJS.ProcessEnv, declared: readonly string[]): Redactor {
  return Redactor.fromEnv(secretEnvNames(env, declared), env);
}
