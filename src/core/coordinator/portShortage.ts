/**
 * The sentence when no block of ports is left, saying only what would help. It used to say
 * *clean up ended agents* whatever held the range, also when none had ended (agents still running
 * held it all, the range was smaller than one block, other programs listened on it), sending the
 * person to clean up agents whose cleanup would free nothing (bug 183).
 */
import type { PortRange } from '../repoConfig/worktreeConfig';

/** What holds the range's ports: ended agents' (id and ports), live agents', other programs'. */
export interface PortHolders {
  ended: ReadonlyMap<string, readonly number[]>;
  live: ReadonlySet<number>;
  /** Ports some other program on this machine listens on (of the blocks probed). */
  busy: ReadonlySet<number>;
  /**
   * The block that cleaning up ended agents would free, found by the allocation's own probing
   * search with their ports left out; null when none would. Judged here without probing, a block
   * held by an ended agent counted as freeable even when another program listened on it.
   */
  freed: readonly number[] | null;
  /**
   * How many ports of `freed` a program listens on that is not proven the holding agent's own (its
   * owner cannot be told, or carries no marker of it): the cleanup may or may not end it.
   */
  unsure: number;
}

const WIDEN = 'widen paddock.worktree.portRange';

export function portShortageWords(count: number, range: PortRange, holders: PortHolders): string {
  const head = `No block of ${count} free port${count === 1 ? '' : 's'} is left in ${range.first}-${range.last}`;
  const size = range.last - range.first + 1;
  if (count > size) return `${head}: the range has ${size} port${size === 1 ? '' : 's'} and each agent asks for ${count}; ${WIDEN}.`;
  // Only the agents whose ports lie in that block: cleaning up another ended agent frees no block.
  const freed = new Set(holders.freed ?? []);
  const helps = [...holders.ended].filter(([, ports]) => ports.some((p) => freed.has(p))).map(([id]) => id);
  if (helps.length > 0) {
    const named = helps.slice(0, 5).join(', ') + (helps.length > 5 ? `, and ${helps.length - 5} more` : '');
    const held = `${named} ${helps.length === 1 ? 'holds' : 'hold'} ports in it`;
    // Neither claimed freed nor claimed not: a server the agent's setup started may end with its teardown.
    const hedge = holders.unsure > 0 ? `; a program listens on ${holders.unsure} of them, which ${helps.length === 1 ? 'its' : 'their'} cleanup may or may not end` : '';
    return `${head}: clean up ended agents (${held}${hedge}) or ${WIDEN}.`;
  }
  const inRange = (ports: ReadonlySet<number>) => [...ports].filter((p) => p >= range.first && p <= range.last).length;
  const held = [
    inRange(holders.live) > 0 ? `agents still running or queued hold ${inRange(holders.live)} of its ports` : null,
    inRange(holders.busy) > 0 ? `other programs listen on ${inRange(holders.busy)}` : null,
  ].filter((w) => w !== null);
  return `${head}${held.length > 0 ? ` (${held.join(', ')})` : ''}: ${WIDEN}.`;
}
