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

/**
 * An identity whose start time may be unknown: a launch whose look at its new worker failed (bug 219). Such a one
 * is judged by its pid and boot alone, for the short while until the worker's claim records its full identity.
 */
export type RecordedIdentity = Omit<ProcessIdentity, 'startTime'> & { startTime: number | null };

export function bootId(): string {
  return processBackend().bootId();
}

/** One process's stat; undefined when the process does not exist. */
export function readProcStat(pid: number): ProcStat | undefined {
  return processBackend().processStat(pid);
}

/** `readProcStat` without blocking the event loop (on the portable backend each read is a `ps` run). */
export function readProcStatAsync(pid: number): Promise<ProcStat | undefined> {
  return processBackend().processStatAsync(pid);
}

export function identityOf(pid: number): ProcessIdentity | undefined {
  const stat = readProcStat(pid);
  if (!stat) return undefined;
  return { pid, startTime: stat.startTime, bootId: bootId() };
}

let cachedOwnIdentity: { backend: string; identity: ProcessIdentity | undefined } | undefined;

/**
 * This process's identity, read once: it cannot change while the process lives, and on the portable
 * backend every read is a `ps` run that blocks (claims and locks ask for it on every write). Kept per
 * backend: start times are comparable only within one (a test may switch).
 */
export function ownIdentity(): ProcessIdentity | undefined {
  const backend = processBackend().name;
  if (cachedOwnIdentity?.backend !== backend) cachedOwnIdentity = { backend, identity: identityOf(process.pid) };
  return cachedOwnIdentity.identity;
}

/**
 * Whether `identity` is this very process, known alive without asking the system: locks and claims
 * held in this process are judged on every retry, and on the portable backend asking is a `ps` run.
 */
export function isThisProcess(identity: RecordedIdentity): boolean {
  const own = ownIdentity();
  return own !== undefined && identity.pid === own.pid && identity.startTime === own.startTime && identity.bootId === own.bootId;
}

export type Liveness = 'alive' | 'dead' | 'zombie' | 'reused';

/** Where a judgment reads a process's stat: the system at that moment (`readProcStat`), or a table read once. */
export type StatSource = (pid: number) => ProcStat | undefined;

/** Judges a recorded identity against the running system (or against `stats`, a table read once). */
export function livenessOf(identity: RecordedIdentity, stats: StatSource = readProcStat): Liveness {
  if (identity.bootId !== bootId()) return 'reused';
  if (isThisProcess(identity)) return 'alive';
  const stat = stats(identity.pid);
  if (!stat) return 'dead';
  if (identity.startTime !== null && stat.startTime !== identity.startTime) return 'reused';
  if (stat.state === 'Z' || stat.state === 'X') return 'zombie';
  return 'alive';
}

export function isAlive(identity: ProcessIdentity): boolean {
  return livenessOf(identity) === 'alive';
}

/**
 * A stat source for judging many processes at once, such as every record of a
 * listing. On the portable backend each `readProcStat` is a blocking `ps` run
 * (20 live agents: 20 runs on the extension host's event loop per listing), so
 * the whole table is read once, without blocking. Elsewhere a stat is a cheap
 * file read, made per process.
 *
 * The table is exact for identities read from disk before it was taken (a
 * process recorded then had started already: alive, it is in the table), as a
 * lock's owner file is. A process started after the table was taken is missing
 * from it and judged gone: a listing, which takes the table before it has read
 * every record, uses it only to find records worth a closer look, and judges
 * them again with `readProcStat` before it writes anything.
 */
export function processTableSource(): StatSource | Promise<StatSource> {
  const backend = processBackend();
  if (!backend.processTableAsync) return readProcStat;
  return backend.processTableAsync().then((processes) => {
    const table = new Map(processes.map((p) => [p.pid, p]));
    return (pid: number) => table.get(pid);
  });
}
