/**
 * Parsing what `ps` and `lsof` print, kept pure so the macOS formats can be
 * tested on captured samples on Linux. Both tools are run with LC_ALL=C.
 */
import { isGoneState, type ProcStat } from './procStat';

/** The columns asked of `ps` (same keywords on procps and macOS), comm last since it may hold spaces. */
export const PS_STAT_COLUMNS = 'pid=,ppid=,pgid=,sess=,tpgid=,stat=,lstart=,comm=';

// pid ppid pgid sess tpgid stat lstart(5 words) comm
const STAT_LINE = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(-?\d+)\s+(\S+)\s+([A-Z][a-z]{2} [A-Z][a-z]{2}\s+\d{1,2} \d{2}:\d{2}:\d{2} \d{4})\s+(.*)$/;

/** `lstart` ("Thu Dec  3 05:35:19 2026", local time) as seconds since the epoch; NaN if unreadable. */
export function parseLstart(text: string): number {
  const m = /^[A-Z][a-z]{2} ([A-Z][a-z]{2})\s+(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/.exec(text.trim());
  if (!m) return NaN;
  const month = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'].indexOf(m[1]);
  if (month < 0) return NaN;
  return Math.floor(new Date(Number(m[6]), month, Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5])).getTime() / 1000);
}

/**
 * The session column: a number on Linux; macOS prints a session pointer in
 * hex, which still identifies the session (it is only ever compared for equality).
 */
function parseSession(text: string): number {
  if (/^-?\d+$/.test(text)) return Number(text);
  const hex = Number.parseInt(text.replace(/^0x/, ''), 16);
  return Number.isFinite(hex) ? hex % Number.MAX_SAFE_INTEGER : -1;
}

export function parsePsStatLine(line: string): ProcStat | undefined {
  const m = STAT_LINE.exec(line);
  if (!m) return undefined;
  const startTime = parseLstart(m[7]);
  if (!Number.isFinite(startTime)) return undefined;
  return {
    pid: Number(m[1]),
    ppid: Number(m[2]),
    pgid: Number(m[3]),
    sid: parseSession(m[4]),
    tpgid: Number(m[5]),
    state: m[6][0],
    startTime,
    // macOS prints the executable's path; keep its last part like /proc's comm.
    comm: m[8].trim().split('/').pop() ?? '',
  };
}

export function parsePsStat(output: string): ProcStat[] {
  const out: ProcStat[] = [];
  for (const line of output.split('\n')) {
    const stat = parsePsStatLine(line);
    if (stat) out.push(stat);
  }
  return out;
}

/**
 * Pids whose line of `ps` with environments (`ps e` on Linux, `ps -E` on macOS:
 * "<pid> <command line> NAME=value …") holds NAME=value as a whole word.
 */
export function pidsWithMarker(output: string, name: string, value: string): number[] {
  const needle = `${name}=${value}`;
  const pids: number[] = [];
  for (const line of output.split('\n')) {
    const m = /^\s*(\d+)\s(.*)$/.exec(line);
    if (!m) continue;
    const words = m[2].split(/\s+/);
    if (words.includes(needle)) pids.push(Number(m[1]));
  }
  return pids;
}

/**
 * Pids whose line of `ps` with environments (see pidsWithMarker) shows no NAME=value word at all: an
 * empty environment, which a process caught in execve(2) shows for a moment (environ.ts).
 */
export function pidsWithoutEnvironment(output: string): number[] {
  const pids: number[] = [];
  for (const line of output.split('\n')) {
    const m = /^\s*(\d+)\s(.*)$/.exec(line);
    if (m && !m[2].split(/\s+/).some((w) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(w))) pids.push(Number(m[1]));
  }
  return pids;
}

/** `lsof -F pn` output ("p<pid>" then "n<name>" lines) as (pid, name) pairs. */
export function parseLsofNames(output: string): { pid: number; name: string }[] {
  const out: { pid: number; name: string }[] = [];
  let pid = -1;
  for (const line of output.split('\n')) {
    if (line.startsWith('p')) pid = Number(line.slice(1));
    // A folder deleted under its process reads "<path> (deleted)" on Linux, as in /proc.
    else if (line.startsWith('n') && pid > 0) out.push({ pid, name: line.slice(1).replace(/ \(deleted\)$/, '') });
  }
  return out;
}

/**
 * `ps -o pid=,stat=,args=` output as pid → command line. A process that exited while ps looked is
 * not in it, nor one that exited and is not yet reaped: ps lists that one, as `[sleep] <defunct>`
 * (bug 228).
 */
export function parsePsArgs(output: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const line of output.split('\n')) {
    const m = /^\s*(\d+)\s+(\S+)(?:\s+(.*))?$/.exec(line);
    if (m && !isGoneState(m[2][0])) out.set(Number(m[1]), (m[3] ?? '').trim());
  }
  return out;
}

/** The columns asked of `ps` for usage: resident KiB, %cpu and CPU time, with lstart (5 words) last. */
/** The usage table's columns, with the CPU time column `time` (macOS) or `bsdtime` (procps): see portable.ts. */
export const psUsageColumns = (timeColumn: 'time' | 'bsdtime') => `pid=,ppid=,sess=,rss=,pcpu=,${timeColumn}=,lstart=`;

/**
 * `ps`'s cumulative CPU time in seconds: procps prints "[DD-]HH:MM:SS", macOS
 * "M:SS.cc" (hundredths); NaN when unreadable.
 */
export function parseCpuTime(text: string): number {
  const m = /^(?:(\d+)-)?((?:\d+:)*\d+(?:\.\d+)?)$/.exec(text.trim());
  if (!m) return NaN;
  const seconds = m[2].split(':').reduce((total, part) => total * 60 + Number(part), 0);
  return (m[1] ? Number(m[1]) * 86_400 : 0) + seconds;
}

export interface PsUsageLine {
  pid: number;
  ppid: number;
  sid: number;
  rssKiB: number;
  pcpu: number;
  cpuSeconds: number;
  /** Whether the CPU time had a fraction (macOS) or whole seconds only (procps). */
  fractional: boolean;
  startTime: number;
}

const USAGE_LINE = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(\d+)\s+([\d.,]+)\s+(\S+)\s+([A-Z][a-z]{2} [A-Z][a-z]{2}\s+\d{1,2} \d{2}:\d{2}:\d{2} \d{4})\s*$/;

export function parsePsUsage(output: string): PsUsageLine[] {
  const out: PsUsageLine[] = [];
  for (const line of output.split('\n')) {
    const m = USAGE_LINE.exec(line);
    if (!m) continue;
    const cpuSeconds = parseCpuTime(m[6]);
    const startTime = parseLstart(m[7]);
    if (!Number.isFinite(cpuSeconds) || !Number.isFinite(startTime)) continue;
    out.push({
      pid: Number(m[1]),
      ppid: Number(m[2]),
      sid: parseSession(m[3]),
      rssKiB: Number(m[4]),
      pcpu: Number(m[5].replace(',', '.')),
      cpuSeconds,
      fractional: m[6].includes('.'),
      startTime,
    });
  }
  return out;
}

/** Each pid's value of NAME in `ps` with environments (see pidsWithMarker). */
export function markersByPid(output: string, name: string): Map<number, string> {
  const prefix = `${name}=`;
  const found = new Map<number, string>();
  for (const line of output.split('\n')) {
    const m = /^\s*(\d+)\s(.*)$/.exec(line);
    if (!m) continue;
    const word = m[2].split(/\s+/).find((w) => w.startsWith(prefix));
    if (word !== undefined) found.set(Number(m[1]), word.slice(prefix.length));
  }
  return found;
}

/** The stall watch's columns (see portable.ts): the CPU time column `time` (macOS) or `bsdtime` (procps). */
export const psWorkColumns = (timeColumn: 'time' | 'bsdtime') => `pid=,sess=,stat=,${timeColumn}=`;

export interface PsWorkLine {
  pid: number;
  sid: number;
  /** The first letter of ps's state, as ProcStat.state. */
  state: string;
  cpuSeconds: number;
}

const WORK_LINE = /^\s*(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s*$/;

export function parsePsWork(output: string): PsWorkLine[] {
  const out: PsWorkLine[] = [];
  for (const line of output.split('\n')) {
    const m = WORK_LINE.exec(line);
    if (!m) continue;
    const cpuSeconds = parseCpuTime(m[4]);
    if (!Number.isFinite(cpuSeconds)) continue;
    out.push({ pid: Number(m[1]), sid: parseSession(m[2]), state: m[3][0], cpuSeconds });
  }
  return out;
}
