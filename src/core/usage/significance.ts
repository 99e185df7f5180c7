/**
 * Whether new figures differ enough from the recorded ones to be written: a
 * figure appearing or disappearing, or moving by more than 5 % (and more than
 * a small floor, so a CPU share wobbling around 1 % or a few bytes of output do
 * not rewrite the record on every sample).
 */
import type { Usage } from '../store/schema';

export const CHANGE_RATIO = 0.05;

const FLOORS: Record<Exclude<keyof Usage, 'sampledAt'>, number> = {
  cpuPercent: 2,
  rssBytes: 1024 * 1024,
  diskBytes: 1024 * 1024,
  outputBytes: 1024,
  tokensIn: 0,
  tokensOut: 0,
  costUsd: 0,
};

export function usageChanged(before: Usage | null | undefined, after: Usage): boolean {
  if (!before) return true;
  for (const field of Object.keys(FLOORS) as (keyof typeof FLOORS)[]) {
    const a = before[field] ?? null;
    const b = after[field] ?? null;
    if (a === null || b === null) {
      if (a !== b) return true;
      continue;
    }
    const delta = Math.abs(a - b);
    if (delta > FLOORS[field] && delta > CHANGE_RATIO * Math.max(Math.abs(a), Math.abs(b))) return true;
  }
  return false;
}
