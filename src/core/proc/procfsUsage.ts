/**
 * The /proc reader of process usage: one pass over /proc/<pid>/stat (session,
 * start time, CPU time, resident pages), with the environment read only for a
 * process not seen before (the marker is fixed at exec, so it is remembered by
 * pid and start time). Asynchronous and a few reads at a time: it runs in the
 * extension host.
 */
import { execFile } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import { mapConcurrently } from '../common/limiter';
import type { ProcessUsage, ProcessUsageSnapshot } from './processUsage';

const CONCURRENCY = 8;

interface Units {
  ticksPerSecond: number;
  pageBytes: number;
}

let units: Promise<Units> | undefined;

function getconf(name: string, fallback: number): Promise<number> {
  return new Promise((resolve) => {
    execFile('getconf', [name], { timeout: 5000 }, (err, stdout) => {
      const value = Number(String(stdout).trim());
      resolve(!err && Number.isInteger(value) && value > 0 ? value : fallback);
    });
  });
}

/** Clock ticks per second and the page size, asked once (USER_HZ is 100 and pages 4 KiB almost everywhere). */
function systemUnits(): Promise<Units> {
  units ??= Promise.all([getconf('CLK_TCK', 100), getconf('PAGESIZE', 4096)]).then(([ticksPerSecond, pageBytes]) => ({ ticksPerSecond, pageBytes }));
  return units;
}

/** Marker values by "pid:startTime"; null when the process has none or its environment is unreadable. */
const markerCache = new Map<string, string | null>();

async function markerOf(pid: number, startTime: number, name: string): Promise<string | undefined> {
  const key = `${name}:${pid}:${startTime}`;
  const known = markerCache.get(key);
  if (known !== undefined) return known ?? undefined;
  let value: string | null = null;
  try {
    const prefix = `${name}=`;
    const entry = (await fsp.readFile(`/proc/${pid}/environ`, 'utf8')).split('\0').find((e) => e.startsWith(prefix));
    value = entry === undefined ? null : entry.slice(prefix.length);
  } catch {
    value = null; // another user's, a kernel thread, or gone
  }
  markerCache.set(key, value);
  return value ?? undefined;
}

/** Fields of /proc/<pid>/stat after the command name; field N is at index N - 3. */
function statFields(text: string): string[] | undefined {
  const close = text.lastIndexOf(')');
  return close < 0 ? undefined : text.slice(close + 2).split(' ');
}

export async function procfsUsageSnapshot(markerName: string): Promise<ProcessUsageSnapshot> {
  const { ticksPerSecond, pageBytes } = await systemUnits();
  const pids = (await fsp.readdir('/proc')).filter((n) => /^[0-9]+$/.test(n)).map(Number);
  const seen = new Set<string>();
  const read = await mapConcurrently(pids, CONCURRENCY, async (pid): Promise<ProcessUsage | undefined> => {
    let fields: string[] | undefined;
    try {
      fields = statFields(await fsp.readFile(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return undefined; // exited while we looked
    }
    if (!fields || fields[0] === 'Z' || fields[0] === 'X') return undefined;
    const startTime = Number(fields[19]);
    seen.add(`${markerName}:${pid}:${startTime}`);
    return {
      pid,
      startTime,
      sid: Number(fields[3]),
      marker: await markerOf(pid, startTime, markerName),
      rssBytes: Number(fields[21]) * pageBytes,
      cpuSeconds: (Number(fields[11]) + Number(fields[12])) / ticksPerSecond,
    };
  });
  for (const key of markerCache.keys()) if (!seen.has(key)) markerCache.delete(key);
  return { at: Date.now(), processes: read.filter((p): p is ProcessUsage => p !== undefined), cpuResolutionSeconds: 1 / ticksPerSecond };
}
