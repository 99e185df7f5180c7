/**
 * Who holds a directory: processes whose cwd, root, executable or open file
 * descriptors resolve inside it. `git worktree remove --force` succeeds under
 * a live process (its cwd becomes "(deleted)"), so cleanup asks this first.
 */
import * as path from 'node:path';
import { realPathOrSync } from '../common/paths';
import { processBackend, type Holder } from './backend';

export type { Holder } from './backend';

function canonical(dir: string): string {
  const abs = path.resolve(dir);
  // The directory may already be gone; /proc links then read "<path> (deleted)".
  return realPathOrSync(abs, abs);
}

/** Processes (other than this one) holding `dir` or anything inside it, by pid; the scan yields to the event loop. */
export function holdersOf(dir: string): Promise<Holder[]> {
  return processBackend().holdersOf(canonical(dir));
}
