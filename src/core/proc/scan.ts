/**
 * Process discovery by scanning /proc. Parent-pid walks (pidtree, ps-list)
 * miss orphans reparented to pid 1, so membership is decided by session id
 * (field 6 of /proc/<pid>/stat) and by an environment marker that every
 * descendant inherits, even one that escaped into a new session.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { ProcStat, readProcStat } from './identity';

/** Pids of every process visible in /proc, ascending. */
export function listPids(): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (/^[0-9]+$/.test(name)) pids.push(Number(name));
  }
  return pids.sort((a, b) => a - b);
}

/** Every process that exists at the moment of the scan (those that exit mid-scan are skipped). */
export function listProcesses(): ProcStat[] {
  const out: ProcStat[] = [];
  for (const pid of listPids()) {
    const stat = readProcStat(pid);
    if (stat) out.push(stat);
  }
  return out;
}

export function sessionMembers(sid: number): ProcStat[] {
  return listProcesses().filter((p) => p.sid === sid);
}

export function isGoneState(state: string): boolean {
  // Z: zombie (exited, waiting to be reaped); X: dead. Neither runs any more.
  return state === 'Z' || state === 'X';
}

/** The NAME=value pairs of a process, or undefined when unreadable (gone, other user, kernel thread). */
export function environOf(pid: number): Map<string, string> | undefined {
  let raw: string;
  try {
    raw = readFileSync(`/proc/${pid}/environ`, 'utf8');
  } catch {
    return undefined;
  }
  const env = new Map<string, string>();
  for (const entry of raw.split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) env.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return env;
}

function ownedByUs(pid: number): boolean {
  const uid = process.getuid?.();
  if (uid === undefined) return true;
  try {
    return statSync(`/proc/${pid}`).uid === uid;
  } catch {
    return false;
  }
}

/**
 * Processes of the current user whose environment holds NAME=value. Processes
 * whose environ cannot be read are ignored; so are zombies (their environ is empty).
 */
export function findByEnvMarker(name: string, value: string): ProcStat[] {
  const out: ProcStat[] = [];
  for (const pid of listPids()) {
    if (!ownedByUs(pid)) continue;
    const env = environOf(pid);
    if (env?.get(name) !== value) continue;
    const stat = readProcStat(pid);
    if (stat && !isGoneState(stat.state)) out.push(stat);
  }
  return out;
}

/**
 * The command line of a process as one string (arguments joined by spaces),
 * falling back to its short name for kernel threads and zombies, and to ''
 * when the process no longer exists.
 */
export function commandLineOf(pid: number): string {
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    const line = raw.split('\0').filter((s) => s.length > 0).join(' ');
    if (line.length > 0) return line;
  } catch {
    // fall through to comm
  }
  return readProcStat(pid)?.comm ?? '';
}
