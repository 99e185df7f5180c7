/**
 * CPU % over the last interval: the CPU time an agent's processes used since
 * the previous snapshot, over the wall time between the two. A process first
 * seen in this snapshot counts from the next one (its earlier time is not of
 * this interval). Where CPU time comes in steps too coarse for the interval
 * (procps's ps counts whole seconds), the operating system's own %cpu is used.
 */
import type { ProcessUsage, ProcessUsageSnapshot } from '../proc/processUsage';

/** An interval must span this many steps of the CPU clock to be measured by difference. */
const STEPS_PER_INTERVAL = 10;

export class CpuTracker {
  private previous = new Map<string, number>();
  private previousAt: number | undefined;

  /** When the last snapshot was taken (ms), undefined before the first. */
  get lastAt(): number | undefined {
    return this.previousAt;
  }

  /** Takes in a snapshot; afterwards `percentOf` answers over the interval that ended with it. */
  advance(snapshot: ProcessUsageSnapshot): CpuInterval {
    const before = this.previous;
    const since = this.previousAt;
    this.previous = new Map(snapshot.processes.map((p) => [key(p), p.cpuSeconds]));
    this.previousAt = snapshot.at;
    return new CpuInterval(before, since, snapshot);
  }
}

export class CpuInterval {
  constructor(
    private readonly before: ReadonlyMap<string, number>,
    private readonly since: number | undefined,
    private readonly snapshot: ProcessUsageSnapshot,
  ) {}

  /** Whether there was an earlier snapshot to measure from. */
  get measured(): boolean {
    return this.since !== undefined && this.snapshot.at > this.since;
  }

  /** The processes' share of one CPU in percent (100 = one core busy); null without an interval. */
  percentOf(processes: readonly ProcessUsage[]): number | null {
    if (processes.length === 0) return 0;
    const seconds = this.since === undefined ? 0 : (this.snapshot.at - this.since) / 1000;
    const coarse = seconds < this.snapshot.cpuResolutionSeconds * STEPS_PER_INTERVAL;
    if (coarse && processes.every((p) => p.cpuPercentHint !== undefined)) {
      return round(processes.reduce((sum, p) => sum + p.cpuPercentHint!, 0));
    }
    if (!this.measured) return null;
    let used = 0;
    for (const p of processes) {
      const earlier = this.before.get(key(p));
      if (earlier !== undefined) used += Math.max(0, p.cpuSeconds - earlier);
    }
    return round((used / seconds) * 100);
  }
}

function key(p: ProcessUsage): string {
  return `${p.pid}:${p.startTime}`;
}

function round(percent: number): number {
  return Math.round(percent * 10) / 10;
}
