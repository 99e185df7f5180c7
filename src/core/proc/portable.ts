/**
 * The portable backend: `ps` and `lsof`, as on macOS (where there is no /proc).
 * Runs on Linux too with PADDOCK_PROCESS_BACKEND=portable, so the tests prove it.
 * - start times from `ps -o lstart` (one-second resolution);
 * - the boot identity from `sysctl kern.boottime` on macOS, pid 1's start elsewhere;
 * - the environment marker from `ps` with environments (own processes only, all Paddock needs);
 * - holders from `lsof -d cwd` (every process's cwd) and `lsof +D` (open files below the folder).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describeError, failure } from '../common/errors';
import type { EnvMarker, Holder, ProcessBackend, SessionWork } from './backend';
import { holder, isInside } from './procfs';
import { connectPortListeners } from './portListeners';
import { isGoneState, type ProcStat } from './procStat';
import { readBlankAgain, readBlankAgainSync, type ReadAgainPlan } from './knownBlank';
import type { ProcessUsageSnapshot } from './processUsage';
import { lsofLook, psListing, psListingSync, psLook, psLookSync, TOOL_OPTIONS } from './psListing';
import { markersByPid, parseLsofNames, pidsWithoutEnvironment, parsePsArgs, parsePsStat, parsePsUsage, parsePsWork, pidsWithMarker, PS_STAT_COLUMNS, psUsageColumns, psWorkColumns } from './psParse';

/** stdout of `sysctl` (macOS's boot time); throws when it fails: a boot identity is never guessed. */
function sysctl(args: string[]): string {
  try {
    return execFileSync('sysctl', args, { ...TOOL_OPTIONS(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch (err) {
    throw failure(`Could not read the boot time (sysctl ${args.join(' ')}): ${describeError(err, 200)}.`);
  }
}

let cachedBootId: string | undefined;
/** The last failed boot-identity look and when it ended: thrown again at once for a while. */
let bootIdFailure: { error: unknown; at: number } | undefined;
/**
 * How long a failed boot-identity look stands: every look blocks (up to 10 s of a hanging `ps`), and
 * the extension host asks every 5 s (the suspension recheck), so looking again each time kept it
 * blocked most of the time.
 */
const BOOT_ID_FAILURE_MS = 30_000;

/**
 * Read once, and only from a look that answered: a `ps` that failed was cached as 'unknown' for the
 * process's life, and every identity recorded by another process (a lock's live owner, a running
 * worker) was judged of another boot, gone (bug 196). A failed look throws (psListing.ts), as a
 * failed look at the process itself does; it is thrown again without a look for BOOT_ID_FAILURE_MS,
 * then the next caller looks again.
 */
function bootId(): string {
  if (cachedBootId !== undefined) return cachedBootId;
  if (bootIdFailure && Date.now() - bootIdFailure.at < BOOT_ID_FAILURE_MS) throw bootIdFailure.error;
  try {
    const text = process.platform === 'darwin' ? sysctl(['-n', 'kern.boottime']) : psLookSync(['-o', 'lstart=', '-p', '1']);
    cachedBootId = text.trim().replace(/\s+/g, ' ') || 'unknown';
  } catch (err) {
    bootIdFailure = { error: err, at: Date.now() };
    throw err;
  }
  bootIdFailure = undefined;
  return cachedBootId;
}

/** Throws when `ps` keeps failing: an empty table would judge every process gone (psListing.ts). */
function listProcesses(): ProcStat[] {
  return parsePsStat(psListingSync(['-A', '-o', PS_STAT_COLUMNS]));
}

function processStat(pid: number): ProcStat | undefined {
  return parsePsStat(psLookSync(['-o', PS_STAT_COLUMNS, '-p', String(pid)])).find((p) => p.pid === pid);
}

/** `ps` arguments listing processes with their environments: this user's, or those of `pids`. */
function psWithEnvironments(pids?: readonly number[]): string[] {
  const uid = String(process.getuid?.() ?? '');
  const withEnv = process.platform === 'darwin' ? ['-E', '-ww', '-o', 'pid=,command='] : ['e', '-ww', '-o', 'pid=,command='];
  if (pids) return [...withEnv, '-p', pids.join(',')];
  return [...(uid ? ['-U', uid] : ['-A']), ...withEnv];
}

/** How a process shown with no environment is looked at again (caught at exec: environ.ts), and how far apart. */
const EXEC_READS: ReadAgainPlan = { looks: 2, pauseMs: 10 }; // each a `ps` run: itself longer than an exec

/**
 * Those of `blank` (shown with no environment) that carry `marker` when looked at again, up to
 * EXEC_READS' `ps` runs while some still show none: read as unmarked, an agent's escaped daemon caught
 * at exec was left running (bug 208). Only those worth it (knownBlank.ts): one `ps` may not show
 * (ssh-agent, pid 1 as root) showed none at every look and cost two more runs each time.
 */
async function markedAfterExec(blank: readonly ProcStat[], marker: EnvMarker): Promise<Set<number>> {
  const marked = new Set<number>();
  await readBlankAgain(blank, EXEC_READS, async (pids) => {
    const out = await psLook(psWithEnvironments(pids));
    for (const pid of pidsWithMarker(out, marker.name, marker.value)) marked.add(pid);
    return pidsWithoutEnvironment(out);
  });
  return marked;
}

/** `markedAfterExec` for a blocking caller. */
function markedAfterExecSync(blank: readonly ProcStat[], marker: EnvMarker): Set<number> {
  const marked = new Set<number>();
  readBlankAgainSync(blank, EXEC_READS, (pids) => {
    const out = psLookSync(psWithEnvironments(pids));
    for (const pid of pidsWithMarker(out, marker.name, marker.value)) marked.add(pid);
    return pidsWithoutEnvironment(out);
  });
  return marked;
}

/** The table's entries of `pids` (shown with no environment). */
const blankIn = (table: readonly ProcStat[], pids: readonly number[]) => {
  const blank = new Set(pids);
  return table.filter((p) => blank.has(p.pid));
};

function findByEnvMarker(name: string, value: string): ProcStat[] {
  const environments = psListingSync(psWithEnvironments());
  const pids = new Set(pidsWithMarker(environments, name, value));
  const blank = pidsWithoutEnvironment(environments);
  if (pids.size === 0 && blank.length === 0) return [];
  const table = listProcesses();
  for (const pid of markedAfterExecSync(blankIn(table, blank), { name, value })) pids.add(pid);
  return table.filter((p) => pids.has(p.pid) && !isGoneState(p.state));
}

async function processStatAsync(pid: number): Promise<ProcStat | undefined> {
  return parsePsStat(await psLook(['-o', PS_STAT_COLUMNS, '-p', String(pid)])).find((p) => p.pid === pid);
}

/**
 * The environments first, then the table: a marked process seen alive in the first is in the second
 * unless it ended. A look that failed throws (psListing.ts): read as no marked process, an agent's
 * exit scan missed its `setsid` daemon and recorded it ended with nothing left running.
 */
async function treeMembersAsync(sid: number | undefined, marker?: EnvMarker): Promise<ProcStat[]> {
  const environments = marker ? await psListing(psWithEnvironments()) : '';
  const marked = marker ? new Set(pidsWithMarker(environments, marker.name, marker.value)) : new Set<number>();
  const blank = marker ? pidsWithoutEnvironment(environments) : [];
  if (sid === undefined && marked.size === 0 && blank.length === 0) return []; // nothing to look up in the table
  const table = await processTableAsync();
  if (marker) for (const pid of await markedAfterExec(blankIn(table, blank), marker)) marked.add(pid);
  return table.filter((p) => !isGoneState(p.state) && ((sid !== undefined && p.sid === sid) || marked.has(p.pid)));
}

/** One `ps` run for all `sids`. */
async function sessionsMembersAsync(sids: ReadonlySet<number>): Promise<ProcStat[]> {
  if (sids.size === 0) return [];
  return (await processTableAsync()).filter((p) => !isGoneState(p.state) && sids.has(p.sid));
}

/** One `ps` run for every process asked about, by pid or as a leader or its child. */
async function processesAsync(pids: ReadonlySet<number>, leaders: ReadonlySet<number>): Promise<ProcStat[]> {
  if (pids.size === 0 && leaders.size === 0) return [];
  return (await processTableAsync()).filter((p) => !isGoneState(p.state) && (pids.has(p.pid) || leaders.has(p.pid) || leaders.has(p.ppid)));
}

/**
 * A `ps` that failed (at the process limit, timed out) is tried again, and throws if it keeps failing
 * (psListing.ts): read as an empty table it judged every process gone — a live lock owner dead
 * (bug 84), a tree being stopped already ended, an agent's leftovers exited in their grace.
 */
async function processTableAsync(): Promise<ProcStat[]> {
  return parsePsStat(await psListing(['-A', '-o', PS_STAT_COLUMNS]));
}

/**
 * '' when the process is gone; throws when the look failed (psListing.ts), never read as gone (bug 196).
 * One that exited and is not yet reaped has no command line left: `ps` prints `[sleep] <defunct>`
 * there, which named a leftover so in the record's detail (bug 227); its name, as /proc gives it.
 */
function commandLine(pid: number): string {
  const m = /^\s*(\S+) ?(.*)$/.exec(psLookSync(['-ww', '-o', 'stat=,args=', '-p', String(pid)]).trim());
  if (!m) return '';
  return isGoneState(m[1][0]) ? (processStat(pid)?.comm ?? '') : m[2].trim();
}

/**
 * The time `lsof +D` gets: it looks at every file below the folder (measured under a load of 12 on 2
 * cores: 0.4 s for 5,000 files, 0.8 s for 20,000), so a worktree with a large dependency tree passed
 * 10 s and its cleanup was refused again at every retry (bug 210). Never blocking: a cleanup's look.
 */
const FILES_BELOW_BUDGET_MS = 60_000;

/**
 * `lsof +D root`'s answer; '' when `root` is gone (no file can be open below a folder that does not
 * exist: a deleted cwd is the cwd listing's), where lsof prints its usage and exits 1.
 */
async function filesBelow(root: string): Promise<string> {
  try {
    return await lsofLook(['-n', '-P', '-w', '-F', 'pn', '+D', root], false, FILES_BELOW_BUDGET_MS);
  } catch (err) {
    if (!existsSync(root)) return '';
    throw err;
  }
}

/**
 * Throws when a look failed (psListing.ts): read as "nobody", cleanup removed a worktree a live
 * process was working in (bug 195). The holders' command lines in one `ps` run: a pid it does not
 * list exited while we looked (one not yet reaped too: /proc finds no cwd there, bug 228).
 */
async function holdersOf(root: string): Promise<Holder[]> {
  const [cwds, files] = await Promise.all([
    lsofLook(['-n', '-P', '-w', '-d', 'cwd', '-F', 'pn'], true),
    filesBelow(root),
  ]);
  const names = [...parseLsofNames(cwds), ...parseLsofNames(files)];
  const pids = [...new Set(names.filter((n) => n.pid !== process.pid && isInside(n.name, root)).map((n) => n.pid))].sort((a, b) => a - b);
  if (pids.length === 0) return [];
  const commands = parsePsArgs(await psLook(['-ww', '-o', 'pid=,stat=,args=', '-p', pids.join(',')]));
  return pids.filter((pid) => commands.has(pid)).map((pid) => holder(pid, commands.get(pid) || '?'));
}

/**
 * The process table in ps's cumulative mode, where a process's CPU time
 * includes the children it waited for: macOS's (and BSD's) `-S` applies it to
 * `time`; procps's `S` applies it to `bsdtime` (and %cpu) but not to `time`.
 */
const USAGE_TABLE_ARGS = process.platform === 'linux' ? ['-A', 'S', '-o', psUsageColumns('bsdtime')] : ['-A', '-S', '-o', psUsageColumns('time')];

/** The table a stall watch reads: state and CPU time, in the cumulative mode of USAGE_TABLE_ARGS. */
const WORK_TABLE_ARGS = process.platform === 'linux' ? ['-A', 'S', '-o', psWorkColumns('bsdtime')] : ['-A', '-S', '-o', psWorkColumns('time')];

/** One `ps` run: a session's processes, zombies included, with their state and CPU time in seconds. */
async function sessionWorkAsync(sid: number): Promise<SessionWork[]> {
  return parsePsWork(await psListing(WORK_TABLE_ARGS))
    .filter((p) => p.sid === sid && p.state !== 'X')
    .map(({ pid, state, cpuSeconds }) => ({ pid, state, cpuTime: cpuSeconds }));
}

/**
 * Every process's usage from two `ps` runs (the table, and this user's
 * environments for the marker). The table is in ps's cumulative mode, so a
 * process's CPU time includes its reaped children's; ps does not tell that
 * part apart (reapedCpuSeconds stays unknown: see cpuTracker.ts for what that
 * costs). procps prints CPU time in whole seconds: the resolution says so,
 * and ps's own %cpu comes along as the hint.
 */
async function usageSnapshot(markerName: string, sessions: readonly number[]): Promise<ProcessUsageSnapshot> {
  const wanted = new Set(sessions);
  const [table, environments] = await Promise.all([psListing(USAGE_TABLE_ARGS), psListing(psWithEnvironments())]);
  const at = Date.now();
  const markers = markersByPid(environments, markerName);
  const lines = parsePsUsage(table).filter((l) => markers.has(l.pid) || wanted.has(l.sid));
  return {
    at,
    processes: lines.map((l) => ({
      pid: l.pid,
      startTime: l.startTime,
      ppid: l.ppid,
      sid: l.sid,
      marker: markers.get(l.pid),
      rssBytes: l.rssKiB * 1024,
      cpuSeconds: l.cpuSeconds,
      cpuPercentHint: l.pcpu,
    })),
    cpuResolutionSeconds: lines.length === 0 || lines.some((l) => l.fractional) ? 0.01 : 1,
  };
}

export const portableBackend: ProcessBackend = {
  name: 'portable',
  bootId,
  listProcesses,
  processStat,
  processStatAsync,
  processTableAsync,
  treeMembersAsync,
  sessionWorkAsync,
  sessionsMembersAsync,
  processesAsync,
  findByEnvMarker,
  commandLine,
  holdersOf,
  usageSnapshot,
  portListeners: (ports) => connectPortListeners(ports),
};
