/** How what an ended agent left running is said, the same in the tree, `list` and `show` (the detail's words: store/leftoverWords.ts). */
import { processCount } from '../store/leftoverWords';
import type { JobRecord } from '../store/schema';

/** "2 processes left running", or undefined when the record lists none. */
export function leftoversInWords(job: JobRecord): string | undefined {
  const n = job.leftovers?.length ?? 0;
  return n > 0 ? `${processCount(n)} left running` : undefined;
}
