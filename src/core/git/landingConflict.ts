/** A landing stopped by conflicting changes: the paths, for the person and for "Resolve in Agent's Worktree". */
import { PaddockError } from '../common/errors';

export const CONFLICT_CODE = 'LANDING_CONFLICT';

export class LandingConflict extends PaddockError {
  constructor(
    message: string,
    readonly files: readonly string[],
  ) {
    super(message, 'failed', CONFLICT_CODE);
  }
}

/** "a, b, c and 4 more": a list short enough for one sentence. */
export function fewPaths(paths: readonly string[], max = 5): string {
  if (paths.length <= max) return paths.join(', ');
  return `${paths.slice(0, max).join(', ')} and ${paths.length - max} more`;
}
