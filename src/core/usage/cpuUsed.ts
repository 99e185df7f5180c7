/**
 * The CPU time an agent's processes used between two snapshots.
 *
 * Each process's figure is its own CPU time plus that of the children it
 * waited for (ProcessUsage.cpuSeconds): a child that ends moves its whole
 * figure into its parent's. So over the agent's processes:
 * - a process present at both ends used the growth of its figure, which
 *   includes every child it reaped meanwhile — one born and ended within the
 *   interval too, which no snapshot sees;
 * - a process born within the interval used all of its figure;
 * - a process that ended within the interval and was reaped by one of the
 *   agent's processes has its whole figure in the reaper's growth, part of
 *   which (its figure at the first snapshot) was counted before: that part
 *   is taken off the reaper's growth — at most what the reaper's reaped part
 *   grew by, so a process that left otherwise (an escaped child reaped by
 *   init, one that left the agent alive) is never taken off twice nor makes
 *   a figure negative. It is attributed to its nearest ancestor present at
 *   both ends, through ancestors that ended too (a grandchild reaped by a
 *   child the agent's process then reaped).
 * What a process that ended used since the first snapshot is lost when no
 * process of the agent reaped it (init did): an undercount, never a guess.
 * Where the backend does not tell the reaped part apart (ps), the reaper's
 * whole growth bounds what is taken off, so a reaper's own CPU may be
 * undercounted in an interval in which a child of it left without being
 * reaped by it.
 */
import type { ProcessUsage } from '../proc/processUsage';

/** One process: a pid with its start time (pids are reused). */
export function processKey(p: ProcessUsage): string {
  return `${p.pid}:${p.startTime}`;
}

/** CPU seconds used between `before` (the agent's processes by key at the first snapshot) and `now`. */
export function cpuUsedBetween(before: ReadonlyMap<string, ProcessUsage>, now: readonly ProcessUsage[]): number {
  const present = new Map(now.map((p) => [processKey(p), p]));
  const beforeByPid = new Map([...before.values()].map((p) => [p.pid, p]));
  let used = 0;
  const growth = new Map<string, { total: number; reaped: number }>();
  for (const p of now) {
    const earlier = before.get(processKey(p));
    if (!earlier) {
      used += p.cpuSeconds;
      continue;
    }
    const total = Math.max(0, p.cpuSeconds - earlier.cpuSeconds);
    const reaped =
      p.reapedCpuSeconds !== undefined && earlier.reapedCpuSeconds !== undefined ? Math.max(0, p.reapedCpuSeconds - earlier.reapedCpuSeconds) : total;
    growth.set(processKey(p), { total, reaped });
  }
  const countedBefore = new Map<string, number>();
  for (const [key, ended] of before) {
    if (present.has(key)) continue;
    const reaper = survivingAncestor(ended, beforeByPid, present);
    if (reaper !== undefined) countedBefore.set(reaper, (countedBefore.get(reaper) ?? 0) + ended.cpuSeconds);
  }
  for (const [key, g] of growth) used += g.total - Math.min(countedBefore.get(key) ?? 0, g.reaped);
  return used;
}

/** The key of the nearest ancestor of `p` (as of the first snapshot) still present, through ancestors that are gone. */
function survivingAncestor(p: ProcessUsage, beforeByPid: ReadonlyMap<number, ProcessUsage>, present: ReadonlyMap<string, ProcessUsage>): string | undefined {
  let current = p;
  for (let depth = 0; depth < beforeByPid.size; depth++) {
    const parent = beforeByPid.get(current.ppid);
    if (!parent || parent === current) return undefined;
    const key = processKey(parent);
    if (present.has(key)) return key;
    current = parent;
  }
  return undefined;
}
