/**
 * Process identity: a pid is only "the same process" when its start time and
 * the boot identity match too, so a reused pid is never mistaken for a worker
 * or an agent. The operating system is asked through the process backend.
 */
import { processBackend } from './backend';
import type { ProcStat } from './procStat';

export type { ProcStat } from './procStat';

export interface ProcessIdentity {
  pid: number;
  startTime: number;
  bootId: string;
}

export function bootId(): string {
  return processBackend().bootId();
}

/** One process's stat; undefined when the process does not exist. */
export function readProcStat(pid: number): ProcStat | undefined {
  return processBackend().processStat(pid);
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
