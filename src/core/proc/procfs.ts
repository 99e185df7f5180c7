/**
 * The Linux backend: everything read straight from /proc, no child process.
 * The scans of every process also come asynchronous (fs.promises), for the
 * extension host. Membership is decided by session id (field 6 of /proc/<pid>/stat) and by an
 * environment marker every descendant inherits; parent-pid walks would miss
 * orphans reparented to pid 1.
 */
import { promises as fsp, readFileSync, readdirSync, statSync } from 'node:fs';
import { describeError, failure } from '../common/errors';
import { mapConcurrently } from '../common/limiter';
import type { EnvMarker, Holder, ProcessBackend, SessionWork } from './backend';
import { isGoneState, statCpuTicks, type ProcStat } from './procStat';
import { goneOrThrow } from './procRead';
import { environOf, markedAfterExec, markedAfterExecSync } from './environ';
import { procfsPortListeners } from './portListeners';
import { procfsUsageSnapshot } from './procfsUsage';

const DELETED_SUFFIX = ' (deleted)';
const BOOT_ID_FILE = '/proc/sys/kernel/random/boot_id';

let cachedBootId: string | undefined;

/**
 * Read once, and only from a read that worked. A failed read was cached as 'unknown' for the
 * process's life, and every identity another process recorded (a lock's live owner, a running
 * worker or agent) was judged of another boot, gone, until it ended (bug 207, the /proc side of bug
 * 196): a read fails for a moment when this process is out of file descriptors. Such a read throws
 * and the next caller reads again; only a system with no such file at all (every process of it
 * reads the same) is 'unknown'.
 */
function bootId(): string {
  if (cachedBootId !== undefined) return cachedBootId;
  let text: string;
  try {
    text = readFileSync(BOOT_ID_FILE, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw failure(`Could not read the boot identity (${BOOT_ID_FILE}): ${describeError(err, 200)}.`);
    text = 'unknown';
  }
  if (text === '') throw failure(`Could not read the boot identity (${BOOT_ID_FILE}): it was empty.`);
  cachedBootId = text;
  return cachedBootId;
}

/** Parses /proc/<pid>/stat; undefined when the process does not exist. */
export function parseProcStat(pid: number, text: string): ProcStat | undefined {
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

/** Undefined when the process is gone; throws when the read failed otherwise (procRead.ts). */
function processStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (err) {
    return goneOrThrow(`/proc/${pid}/stat`, err);
  }
  return parseProcStat(pid, text);
}

function listPids(): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (/^[0-9]+$/.test(name)) pids.push(Number(name));
  }
  return pids.sort((a, b) => a - b);
}

function listProcesses(): ProcStat[] {
  const out: ProcStat[] = [];
  for (const pid of listPids()) {
    const stat = processStat(pid);
    if (stat) out.push(stat);
  }
  return out;
}

function ownedByUs(pid: number): boolean {
  const uid = process.getuid?.();
  if (uid === undefined) return true;
  try {
    return statSync(`/proc/${pid}`).uid === uid;
  } catch (err) {
    return goneOrThrow(`/proc/${pid}`, err) ?? false;
  }
}

function findByEnvMarker(name: string, value: string): ProcStat[] {
  const marked: number[] = [];
  const blank: number[] = [];
  for (const pid of listPids()) {
    if (!ownedByUs(pid)) continue;
    const env = environOf(pid);
    if (env?.get(name) === value) marked.push(pid);
    else if (env?.size === 0) blank.push(pid); // caught at exec, or an empty environment: read again (environ.ts)
  }
  const blankStats = blank.flatMap((pid) => processStat(pid) ?? []);
  const out: ProcStat[] = [];
  for (const pid of [...marked, ...markedAfterExecSync(blankStats, { name, value })].sort((a, b) => a - b)) {
    const stat = processStat(pid);
    if (stat && !isGoneState(stat.state)) out.push(stat);
  }
  return out;
}

/** Falls back to the short name for kernel threads and zombies, and to '' when the process is gone. */
function commandLine(pid: number): string {
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    const line = raw.split('\0').filter((s) => s.length > 0).join(' ');
    if (line.length > 0) return line;
  } catch {
    // fall through to comm
  }
  return processStat(pid)?.comm ?? '';
}

/** Processes read between two yields to the event loop by a sliced walk (about a millisecond of reads). */
const WALK_SLICE = 32;

/** Processes looked at at once by an asynchronous scan: each look is a few thread-pool reads. */
const SCAN_CONCURRENCY = 8;

async function listPidsAsync(): Promise<number[]> {
  const names = await fsp.readdir('/proc');
  return names.filter((name) => /^[0-9]+$/.test(name)).map(Number).sort((a, b) => a - b);
}

async function processStatAsync(pid: number): Promise<ProcStat | undefined> {
  try {
    return parseProcStat(pid, await fsp.readFile(`/proc/${pid}/stat`, 'utf8'));
  } catch (err) {
    return goneOrThrow(`/proc/${pid}/stat`, err);
  }
}

/**
 * A walk in slices of synchronous reads, yielding to the event loop before each slice: a stop polls
 * this every 25 ms, and through the thread pool one walk cost five times the CPU (measured: ~20
 * against ~4 ms per walk of 70 processes).
 */
async function treeMembersAsync(sid: number | undefined, marker?: EnvMarker): Promise<ProcStat[]> {
  const blank: ProcStat[] = [];
  const found = await slicedWalk((stat) => {
    if (sid !== undefined && stat.sid === sid) return true;
    if (marker === undefined || !ownedByUs(stat.pid)) return false;
    const env = environOf(stat.pid);
    if (env?.size === 0) blank.push(stat); // caught at exec, or an empty environment: read again (environ.ts)
    return env?.get(marker.name) === marker.value;
  });
  if (marker === undefined || blank.length === 0) return found;
  const late = [...(await markedAfterExec(blank, marker))].flatMap((pid) => processStat(pid) ?? []).filter((stat) => !isGoneState(stat.state));
  return [...found, ...late].sort((a, b) => a.pid - b.pid);
}

/** One walk for all `sids`: a walk per session multiplies with both (the grace after an agent's exit looks every 50 ms). */
async function sessionsMembersAsync(sids: ReadonlySet<number>): Promise<ProcStat[]> {
  return sids.size === 0 ? [] : slicedWalk((stat) => sids.has(stat.sid));
}

/** One sliced walk (see treeMembersAsync) for session `sid`'s processes, zombies included, with their CPU time in clock ticks. */
function sessionWorkAsync(sid: number): Promise<SessionWork[]> {
  return slicedStatWalk((pid, text) => {
    const stat = parseProcStat(pid, text);
    if (!stat || stat.sid !== sid || stat.state === 'X') return undefined;
    return { pid: stat.pid, state: stat.state, cpuTime: statCpuTicks(text.slice(text.lastIndexOf(')') + 2).split(' ')) };
  });
}

/** Every live process `keep` takes, walked in slices (see treeMembersAsync). */
function slicedWalk(keep: (stat: ProcStat) => boolean): Promise<ProcStat[]> {
  return slicedStatWalk((pid, text) => {
    const stat = parseProcStat(pid, text);
    return stat && !isGoneState(stat.state) && keep(stat) ? stat : undefined;
  });
}

/** Every process's stat file, read in slices that yield to the event loop: what `pick` makes of each (undefined: nothing). */
async function slicedStatWalk<T>(pick: (pid: number, text: string) => T | undefined): Promise<T[]> {
  const pids = listPids();
  const found: T[] = [];
  for (let i = 0; i < pids.length; i++) {
    if (i % WALK_SLICE === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    let text: string;
    try {
      text = readFileSync(`/proc/${pids[i]}/stat`, 'utf8');
    } catch (err) {
      goneOrThrow(`/proc/${pids[i]}/stat`, err); // exited meanwhile, or thrown: a process unread is not "none"
      continue;
    }
    const picked = pick(pids[i], text);
    if (picked !== undefined) found.push(picked);
  }
  return found;
}

/**
 * A leader's children, from each of its threads' `children` file (a child belongs to the thread that
 * forked it): a few small reads where a walk of /proc reads every process's stat.
 */
function childrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return tasks.flatMap((tid) => {
    try {
      return readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter((n) => n.length > 0).map(Number);
    } catch {
      return [];
    }
  });
}

/**
 * The named processes, and each leader with its children: read from their own files, no walk of
 * /proc (a window asks every few seconds while agents run).
 */
async function processesAsync(pids: ReadonlySet<number>, leaders: ReadonlySet<number>): Promise<ProcStat[]> {
  const wanted = new Set([...pids, ...leaders, ...[...leaders].flatMap((leader) => childrenOf(leader))]);
  return [...wanted].flatMap((pid) => processStat(pid) ?? []).filter((stat) => !isGoneState(stat.state));
}

async function commandLineAsync(pid: number): Promise<string> {
  try {
    const line = (await fsp.readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').filter((s) => s.length > 0).join(' ');
    if (line.length > 0) return line;
  } catch {
    // fall through to comm
  }
  return (await processStatAsync(pid))?.comm ?? '';
}

async function linkTarget(link: string): Promise<string | undefined> {
  try {
    const target = await fsp.readlink(link);
    return target.endsWith(DELETED_SUFFIX) ? target.slice(0, -DELETED_SUFFIX.length) : target;
  } catch {
    return undefined;
  }
}

export function isInside(target: string | undefined, root: string): boolean {
  if (target === undefined) return false;
  return target === root || target.startsWith(root.endsWith('/') ? root : `${root}/`);
}

/**
 * A holder as found: its whole command line. The store redacts it, then cuts it to what the record
 * keeps (messageRedaction.ts): cut first, a secret across the cut would not be found.
 */
export function holder(pid: number, command: string): Holder {
  return { pid, command };
}

/** How many of one process's links are read at once: one await per readlink costs a thread-pool round trip. */
const LINK_BATCH = 64;

async function holds(pid: number, root: string): Promise<boolean> {
  const fixed = await Promise.all(['cwd', 'root', 'exe'].map((entry) => linkTarget(`/proc/${pid}/${entry}`)));
  if (fixed.some((target) => isInside(target, root))) return true;
  let fds: string[];
  try {
    fds = await fsp.readdir(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  for (let at = 0; at < fds.length; at += LINK_BATCH) {
    const targets = await Promise.all(fds.slice(at, at + LINK_BATCH).map((fd) => linkTarget(`/proc/${pid}/fd/${fd}`)));
    if (targets.some((target) => isInside(target, root))) return true;
  }
  return false;
}

async function holdersOf(root: string): Promise<Holder[]> {
  const found = await mapConcurrently(await listPidsAsync(), SCAN_CONCURRENCY, async (pid) => {
    if (pid === process.pid || !(await holds(pid, root))) return undefined;
    const command = await commandLineAsync(pid);
    return command === '' ? undefined : holder(pid, command); // '' : exited while we looked
  });
  return found.filter((h): h is Holder => h !== undefined);
}

export const procfsBackend: ProcessBackend = {
  name: 'proc',
  bootId,
  listProcesses,
  processStat,
  // One small file read: exact at the moment of a signal sent right after it, and cheap.
  processStatAsync: (pid) => Promise.resolve(processStat(pid)),
  treeMembersAsync,
  sessionWorkAsync,
  sessionsMembersAsync,
  processesAsync,
  findByEnvMarker,
  commandLine,
  holdersOf,
  usageSnapshot: procfsUsageSnapshot,
  portListeners: procfsPortListeners,
};
