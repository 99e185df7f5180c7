/**
 * What a cleanup that did not finish means for the person, said once for every
 * door: the CLI's `paddock cleanup` fails with it, the window shows it with the
 * action that resolves it (Clean Up Anyway, Retry Cleanup Now).
 */
import type { Cleanup } from '../store/schema';

export type CleanupShortfall =
  /** Nothing was removed: something would be lost, and only the person may agree to that. */
  | { kind: 'awaiting-consent'; sentence: string }
  /** A stage failed; the scheduler retries it with backoff. */
  | { kind: 'incomplete'; sentence: string };

/** `who` names the agent in the sentence, e.g. `agent 1a2b3c4d` or a quoted title. Null: the cleanup is complete (or none was asked for). */
export function cleanupShortfall(cleanup: Cleanup | null, who: string): CleanupShortfall | null {
  if (cleanup === null || cleanup.phase === 'complete') return null;
  // The error is a clause of this sentence, which every door continues ("; a background coordinator will…"):
  // its own closing full stop would end the sentence mid-way.
  const why = (fallback: string) => (cleanup.lastError ?? fallback).replace(/\.+\s*$/, '');
  if (cleanup.awaitingConsent) {
    // The capture's stops begin "Nothing was removed:", which this sentence already says.
    return { kind: 'awaiting-consent', sentence: `Cleanup of ${who} stopped before removing anything: ${why('something would be lost').replace(/^Nothing was removed: /, '')}` };
  }
  return { kind: 'incomplete', sentence: `Cleanup of ${who} is incomplete at ${cleanup.stage ?? 'an unknown stage'}: ${why('unknown error')}` };
}
