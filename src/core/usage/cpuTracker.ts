/**
 * CPU % over the last interval: the CPU time an agent's processes used since
 * the previous snapshot, over the wall time between the two. Where CPU time
 * comes in steps too coarse for the interval (procps's ps counts whole
 * seconds), the operating system's own %cpu is used.
 *
 * An agent is measured over an interval only if it was watched at both ends;
 * its first interval has no figure. What it used in between is counted by
 * cpuUsedBetween (cpuUsed.ts), which sees the CPU of processes born and ended
 * within the interval (a build's compilers) through their parents.
 */
import type { ProcessUsage, ProcessUsageSnapshot } from '../proc/processUsage';
import { cpuUsedBetween, processKey } from './cpuUsed';

/** An interval must span this many steps of the CPU clock to be measured by difference. */
const STEPS_PER_INTERVAL = 10;

/** Each watched agent's processes, by process key. */
type Watched = Map<string, ReadonlyMap<string, ProcessUsage>>;

export class CpuTracker {
  private previous: Watched = new Map();
  private previousAt: number | undefined;

  /** When the last snapshot was taken (ms), undefined before the first. */
  get lastAt(): number | undefined {
    return this.previousAt;
  }

  /**
   * Takes in a snapshot and each watched agent's processes in it; afterwards
   * `percentOf` answers over the interval that ended with it.
   */
  advance(snapshot: ProcessUsageSnapshot, byAgent: ReadonlyMap<string, readonly ProcessUsage[]>): CpuInterval {
    const before = this.previous;
    const since = this.previousAt;
    this.previous = new Map([...byAgent].map(([id, processes]) => [id, new Map(processes.map((p) => [processKey(p), p]))]));
    this.previousAt = snapshot.at;
    return new CpuInterval(before, since, snapshot, byAgent);
  }
}

export class CpuInterval {
  constructor(
    private readonly before: Watched,
    private readonly since: number | undefined,
    private readonly snapshot: ProcessUsageSnapshot,
    private readonly byAgent: ReadonlyMap<string, readonly ProcessUsage[]>,
  ) {}

  /** The agent's share of one CPU in percent (100 = one core busy); null without an interval over it. */
  percentOf(agentId: string): number | null {
    const processes = this.byAgent.get(agentId);
    if (!processes) return null;
    const seconds = this.since === undefined ? 0 : (this.snapshot.at - this.since) / 1000;
    const coarse = seconds < this.snapshot.cpuResolutionSeconds * STEPS_PER_INTERVAL;
    if (coarse && processes.length > 0 && processes.every((p) => p.cpuPercentHint !== undefined)) {
      return round(processes.reduce((sum, p) => sum + p.cpuPercentHint!, 0));
    }
    const earlier = this.before.get(agentId);
    if (seconds <= 0 || !earlier) return null;
    return round((cpuUsedBetween(earlier, processes) / seconds) * 100);
  }
}

function round(percent: number): number {
  return Math.round(percent * 10) / 10;
}
