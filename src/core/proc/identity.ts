/**
 * Process identity: a pid is only "the same process" when its start time and
 * the boot identity match too, so a reused pid is never mistaken for a worker
 * or an agent. The operating system is asked through the process backend.
 */
import { processBackend } from './backend';
import type { ProcStat } from './procStat';
import { namespaceView, namespaceViewSync, type NamespaceLookup } from './nsView';
import { pidNamespaceTag, recordedWhere, type RecordedWhere } from './pidNamespace';

export type { ProcStat } from './procStat';

export interface ProcessIdentity {
  pid: number;
  startTime: number;
  bootId: string;
}

/** This boot, and the pid namespace this process's pids count in (pidNamespace.ts): what a recorded pid means. */
export function bootId(): string {
  return processBackend().bootId() + pidNamespaceTag();
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
export function isThisProcess(identity: ProcessIdentity): boolean {
  const own = ownIdentity();
  return own !== undefined && identity.pid === own.pid && identity.startTime === own.startTime && identity.bootId === own.bootId;
}

/**
 * `elsewhere`: recorded in another pid namespace, so its pid means nothing here (never signalled by it):
 * either found running there (nsView.ts), or out of sight — a namespace beside or above this one —
 * where it may well be running. Out of sight is never a verdict for good: each judgment that meets it
 * decides further by what it can see (`isOutOfSight`; ownership.ts: the worker's control socket;
 * ownedLock.ts: the holder's heartbeat; checkRunner.ts: the check's age; leftovers stay listed).
 */
export type Liveness = 'alive' | 'dead' | 'zombie' | 'reused' | 'elsewhere';

/** Whether a process judged so may still run: alive, or in another namespace. Never ended or broken for it on this judgment alone. */
export function mayBeRunning(liveness: Liveness): liveness is 'alive' | 'elsewhere' {
  return liveness === 'alive' || liveness === 'elsewhere';
}

/**
 * Where a judgment reads a process's stat: the system at that moment (`readProcStat`), or a table read
 * once; `elsewhere`, where a record names another pid namespace, finds its processes (nsView.ts).
 */
export type StatSource = ((pid: number) => ProcStat | undefined) & { elsewhere?: NamespaceLookup };

function whereRecorded(identity: ProcessIdentity): RecordedWhere {
  const backend = processBackend();
  return recordedWhere(identity.bootId, backend.bootId(), () => backend.legacyBootId?.());
}

function judgeStat(identity: ProcessIdentity, stat: ProcStat | undefined): Liveness {
  if (!stat) return 'dead';
  if (stat.startTime !== identity.startTime) return 'reused';
  if (stat.state === 'Z' || stat.state === 'X') return 'zombie';
  return 'alive';
}

function judge(identity: ProcessIdentity, stats: StatSource): { liveness: Liveness; outOfSight: boolean } {
  const where = whereRecorded(identity);
  switch (where.kind) {
    case 'otherBoot':
      return { liveness: 'reused', outOfSight: false };
    case 'here':
      return { liveness: isThisProcess(identity) ? 'alive' : judgeStat(identity, stats(identity.pid)), outOfSight: false };
    case 'untagged': {
      // An older Paddock's in this namespace when found here by pid and start time; else the initial
      // namespace's (a Paddock there names none), or one that ended: out of sight from here either way.
      const stat = stats(identity.pid);
      if (stat && stat.startTime === identity.startTime) return { liveness: judgeStat(identity, stat), outOfSight: false };
      return { liveness: 'elsewhere', outOfSight: true };
    }
    case 'namespace': {
      const lookup = stats.elsewhere ?? (stats === readProcStat ? namespaceViewSync() : undefined);
      const here = lookup ? lookup(where.ns, identity.pid) : 'unseen';
      if (here === 'unseen') return { liveness: 'elsewhere', outOfSight: true };
      const liveness = judgeStat(identity, here === undefined ? undefined : stats(here));
      // Found running there: under another pid here, so still `elsewhere` (nothing signals it by its recorded pid).
      return { liveness: liveness === 'alive' ? 'elsewhere' : liveness, outOfSight: false };
    }
  }
}

/** Judges a recorded identity against the running system (or against `stats`, a table read once). */
export function livenessOf(identity: ProcessIdentity, stats: StatSource = readProcStat): Liveness {
  return judge(identity, stats).liveness;
}

/** Whether `identity` is in a pid namespace that cannot be seen from here: `elsewhere`, neither found nor proven gone. */
export function isOutOfSight(identity: ProcessIdentity, stats: StatSource = readProcStat): boolean {
  return judge(identity, stats).outOfSight;
}

/**
 * Whether `identity`'s pid counts in this pid namespace, so it may be signalled by it: recorded here (or
 * by an older Paddock for this boot, portable.ts), or recorded untagged and found here by pid and start time.
 */
export function countsHere(identity: ProcessIdentity, stats: StatSource = readProcStat): boolean {
  const kind = whereRecorded(identity).kind;
  return kind === 'here' || (kind === 'untagged' && stats(identity.pid)?.startTime === identity.startTime);
}

/** Whether `identity` names a process in another pid namespace that a scan may find (`processTableSource`). */
export function isInOtherNamespace(identity: ProcessIdentity | null | undefined): boolean {
  return identity != null && whereRecorded(identity).kind === 'namespace';
}

/** Whether `identity` was recorded outside this pid namespace (tagged with another, or untagged here inside one). */
export function isRecordedOutside(identity: ProcessIdentity | null | undefined): boolean {
  const kind = identity == null ? 'here' : whereRecorded(identity).kind;
  return kind === 'namespace' || kind === 'untagged';
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
 *
 * `about`: the identities to be judged. One recorded in another pid namespace has the namespaces
 * scanned too (nsView.ts), asynchronously, so it is found there or proven gone where it can be.
 */
export function processTableSource(about: Iterable<ProcessIdentity | null | undefined> = []): StatSource | Promise<StatSource> {
  const backend = processBackend();
  if (![...about].some(isInOtherNamespace)) {
    if (!backend.processTableAsync) return readProcStat;
    return backend.processTableAsync().then(tableSource);
  }
  // The namespaces first: a process found there and gone by the table is judged gone, never the reverse.
  return namespaceView().then(async (elsewhere) => {
    const stats: StatSource = backend.processTableAsync ? tableSource(await backend.processTableAsync()) : (pid) => readProcStat(pid);
    return Object.assign(stats, { elsewhere });
  });
}

function tableSource(processes: ProcStat[]): StatSource {
  const table = new Map(processes.map((p) => [p.pid, p]));
  return (pid: number) => table.get(pid);
}
