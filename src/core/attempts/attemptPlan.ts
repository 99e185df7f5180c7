/**
 * Several attempts at one task: how many, and which profile each attempt runs.
 * Profiles are dealt round-robin in the order given: attempt i (0-based) runs
 * profiles[i mod profiles.length] — `--attempts 3 --profile claude --profile codex`
 * gives claude, codex, claude. No profile: every attempt runs the default (or
 * the explicit command). Pure, so every door refuses bad input the same way.
 */
import { randomBytes } from 'node:crypto';
import { usageError } from '../common/errors';

export const MAX_ATTEMPTS = 16;

/** The profile of each attempt (undefined: the request's own profile or command), or a usage error in one sentence. */
export function profilesForAttempts(attempts: number, profiles: readonly string[]): (string | undefined)[] {
  if (!Number.isInteger(attempts) || attempts < 1 || attempts > MAX_ATTEMPTS) {
    throw usageError(`The number of attempts must be a whole number from 1 to ${MAX_ATTEMPTS}, not ${attempts}.`, 'BAD_ATTEMPTS');
  }
  if (profiles.length > attempts) {
    throw usageError(`${profiles.length} profiles were given for ${attempts} attempt${attempts === 1 ? '' : 's'}; give at most one profile per attempt.`, 'BAD_ATTEMPTS');
  }
  return Array.from({ length: attempts }, (_, i) => (profiles.length > 0 ? profiles[i % profiles.length] : undefined));
}

/** A new group id, shaped like a job id (8 characters of base36) so it validates wherever an id does. */
export function newGroupId(): string {
  return (BigInt(`0x${randomBytes(8).toString('hex')}`) % 36n ** 8n).toString(36).padStart(8, '0');
}
