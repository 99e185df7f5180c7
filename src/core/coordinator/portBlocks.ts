/** Finding a block of consecutive ports in a range: pure, apart from the probing of ports.ts that uses it. */
import type { PortRange } from '../repoConfig/worktreeConfig';

/** The first free block of `count` ports in `range`, or null. */
export function firstFreeBlock(used: ReadonlySet<number>, count: number, range: PortRange): number[] | null {
  for (let start = range.first; start + count - 1 <= range.last; start++) {
    let clash = -1;
    for (let p = start; p < start + count; p++) {
      if (used.has(p)) {
        clash = p;
        break;
      }
    }
    if (clash < 0) return Array.from({ length: count }, (_, i) => start + i);
    start = clash; // the next candidate starts past the clash
  }
  return null;
}
