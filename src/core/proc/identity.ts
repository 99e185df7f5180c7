/**
 * Process identity on Linux: a pid is only "the same process" when its start
 * time (field 22 of /proc/<pid>/stat) and the boot id match too, so a reused
 * pid is never mistaken for a worker or an agent.
 */
import { readFileSync } from 'node:fs';

export interface ProcessIdentity {
  pid: number;
  startTime: number;
  bootId: string;
}

export interface ProcStat {
  pid: number;
  comm: string;
  state: string;
  ppid: number;
  pgid: number;
  sid: number;
  /** Foreground process group of the controlling terminal (-1 without one). */
  tpgid: number;
  startTime: number;
}

let cachedBootId: string | undefined;

export function bootId(): string {
  if (cachedBootId === undefined) {
    try {
      cachedBootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    } catch {
      cachedBootId = 'unknown';
    }
  }
  return cachedBootId;
}

/** Parses /proc/<pid>/stat; undefined when the process does not exist. */
export function readProcStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // comm is in parentheses and may itself contain spaces or parentheses.
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const rest = text.slice(close + 2).split(' ');
  // rest[0] is field 3 (state); field N is rest[N - 3].
  return {
    pid,
    comm: text.slice(open + 1, close),
    state: rest[0],
    ppid: Number(rest[1]),
    pgid: Number(rest[2]),
    sid: Number(rest[3]),
    tpgid: Number(rest[5]),
    startTime: Number(rest[19]),
  };
}

export function identityOf(pid: number): ProcessIdentity | undefined {
  const stat = readProcStat(pid);
  if (!stat) return undefined;
  return { pid, startTime: stat.startTime, bootId: bootId() };
}

export type Liveness = 'alive' | 'dead' | 'zombie' | 'reused';

/** Judges a recorded identity against the running system. */
export function livenessOf(identity: ProcessIdentity): Liveness {
  if (identity.bootId !== bootId()) return 'reused';
  const stat = readProcStat(identity.pid);
  if (!stat) return 'dead';
  if (stat.startTime !== identity.startTime) return 'reused';
  if (stat.state === 'Z' || stat.state === 'X') return 'zombie';
  return 'alive';
}

export function isAlive(identity: ProcessIdentity): boolean {
  return livenessOf(identity) === 'alive';
}
