/**
 * Process discovery through the process backend. Membership is decided by
 * session id and by an environment marker that every descendant inherits,
 * even one that escaped into a new session; parent-pid walks (pidtree,
 * ps-list) miss orphans reparented to pid 1.
 */
import { processBackend, type EnvMarker } from './backend';
import type { ProcStat } from './procStat';

export { isGoneState } from './procStat';
export type { EnvMarker } from './backend';

/** Pids of every process that exists now, ascending. */
export function listPids(): number[] {
  return listProcesses()
    .map((p) => p.pid)
    .sort((a, b) => a - b);
}

/** Every process that exists at the moment of the scan (those that exit mid-scan are skipped). */
export function listProcesses(): ProcStat[] {
  return processBackend().listProcesses();
}

export function sessionMembers(sid: number): ProcStat[] {
  return listProcesses().filter((p) => p.sid === sid);
}

/**
 * A process tree in one look, without blocking the event loop: the members of session `sid` and,
 * with `marker`, this user's processes carrying it (zombies excluded). A `sid` that names no
 * session one may stop (unknown, 0 for kernel threads, 1 for init's) adds no members.
 */
export function treeMembers(sid: number | null | undefined, marker?: EnvMarker): Promise<ProcStat[]> {
  return processBackend().treeMembersAsync(sid !== null && sid !== undefined && sid > 1 ? sid : undefined, marker);
}

/** The members of the sessions `sids` names that one may stop (above 1), in one look without blocking the event loop. */
export function sessionsMembers(sids: readonly number[]): Promise<ProcStat[]> {
  return processBackend().sessionsMembersAsync(new Set(sids.filter((sid) => sid > 1)));
}

/**
 * Processes of the current user whose environment holds NAME=value. Processes
 * whose environment cannot be read are ignored; so are zombies.
 */
export function findByEnvMarker(name: string, value: string): ProcStat[] {
  return processBackend().findByEnvMarker(name, value);
}

/** `findByEnvMarker` without blocking the event loop: for the extension host (cleanup, its fingerprint, stop). */
export function findByEnvMarkerAsync(name: string, value: string): Promise<ProcStat[]> {
  return processBackend().treeMembersAsync(undefined, { name, value });
}

/**
 * The sessions a tree found by its marker spans, to end each one whole: `first` (the tree's own
 * session, when known), then every session a marked process leads (an escapee's `setsid`), so
 * members that dropped the marker are reached too; when no marked process leads one, the first
 * marked process's. Sessions 0 and 1 (the kernel's, init's) are never among them.
 */
export function markedSessions(marked: readonly ProcStat[], first?: number): number[] {
  const sessions = [...new Set([first, ...marked.filter((p) => p.pid === p.sid).map((p) => p.sid)])].filter((sid): sid is number => sid !== undefined && sid > 1);
  if (sessions.length === 0 && marked.length > 0 && marked[0].sid > 1) sessions.push(marked[0].sid);
  return sessions;
}

/**
 * The command line of a process as one string; its short name for kernel threads; '' when gone.
 * Throws when the look failed (a `ps` that kept failing, bug 196): never read as gone.
 */
export function commandLineOf(pid: number): string {
  return processBackend().commandLine(pid);
}

/** A process's command line to show the person: its short name when that is all there is, or the look failed. */
export function shownCommandOf(p: Pick<ProcStat, 'pid' | 'comm'>): string {
  try {
    return commandLineOf(p.pid) || p.comm;
  } catch {
    return p.comm;
  }
}
