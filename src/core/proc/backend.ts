/**
 * The one place that asks the operating system about processes: the process
 * table (pid, ppid, pgid, sid, start time, command), a process's environment
 * marker, who holds a folder, and the boot identity. Two backends answer:
 * `/proc` on Linux (the fast path) and a portable one built on `ps` and `lsof`,
 * which is what macOS has. The portable one also runs on Linux when
 * PADDOCK_PROCESS_BACKEND=portable, so its logic is proven by the same tests.
 *
 * The scans that walk every process (holders, the environment marker) have
 * asynchronous forms: cleanup runs them in a window's extension host, whose
 * event loop must not stop for a walk of every process's open files.
 *
 * Start times are comparable only within one backend (clock ticks since boot
 * in /proc, seconds since the epoch from `ps -o lstart`): every process of one
 * installation uses the same backend, chosen from the same environment.
 */
import { failure } from '../common/errors';
import type { PortListener } from './portListeners';
import type { ProcessUsageSnapshot } from './processUsage';
import type { ProcStat } from './procStat';

export interface Holder {
  pid: number;
  command: string;
}

/** An environment variable every descendant of an agent inherits (NAME=value). */
export interface EnvMarker {
  name: string;
  value: string;
}

/** One process of a session as a stall watch judges it. */
export interface SessionWork {
  pid: number;
  /** As ProcStat.state: one letter. */
  state: string;
  /**
   * CPU time used so far, its own and its waited-for children's, in the backend's own unit (clock
   * ticks on /proc, seconds from `ps`): compared only with an earlier look of the same backend.
   */
  cpuTime: number;
}

export interface ProcessBackend {
  readonly name: 'proc' | 'portable';
  /** Changes when the machine reboots; part of every recorded process identity. */
  bootId(): string;
  /** Every process that exists now (those that exit mid-scan are skipped). */
  listProcesses(): ProcStat[];
  /** One process, or undefined when it does not exist. */
  processStat(pid: number): ProcStat | undefined;
  /**
   * Every process, read once without blocking the event loop, for judging many
   * at a time (a store listing). Only where each `processStat` is costly (a
   * blocking `ps` run); absent where one process's stat is a cheap file read.
   */
  processTableAsync?(): Promise<ProcStat[]>;
  /**
   * `processStat` without blocking the event loop where it would (a `ps` run); on /proc the read
   * itself, one small file, so a signal sent right after it targets exactly what was read.
   */
  processStatAsync(pid: number): Promise<ProcStat | undefined>;
  /**
   * The members of session `sid` (none when undefined) and, with `marker`, this user's processes
   * carrying it (zombies excluded), in one look without blocking the event loop: what stopping a
   * process tree polls, and (without a session) the marker's scan by cleanup and stop.
   */
  treeMembersAsync(sid: number | undefined, marker?: EnvMarker): Promise<ProcStat[]>;
  /**
   * The processes of session `sid` with their state and CPU time, zombies included (an ended child's
   * CPU time is its own until its parent reaps it), in one look (one walk, one `ps`) without blocking
   * the event loop: all a stall watch judges (stallWatch.ts).
   */
  sessionWorkAsync(sid: number): Promise<SessionWork[]>;
  /** The members of any of `sids` (zombies excluded), in one look (one walk, one `ps`) without blocking the event loop. */
  sessionsMembersAsync(sids: ReadonlySet<number>): Promise<ProcStat[]>;
  /**
   * The processes named in `pids`, and each of `leaders` with its children (zombies excluded), in one
   * look without blocking the event loop: what tells whether an agent or its worker is suspended.
   */
  processesAsync(pids: ReadonlySet<number>, leaders: ReadonlySet<number>): Promise<ProcStat[]>;
  /** This user's processes whose environment holds NAME=value (zombies excluded). */
  findByEnvMarker(name: string, value: string): ProcStat[];
  /** A process's command line (arguments joined by spaces); '' when it is gone; throws when the look failed. */
  commandLine(pid: number): string;
  /** Processes other than this one whose cwd, root, executable or open files are inside `root` (canonical). */
  holdersOf(root: string): Promise<Holder[]>;
  /**
   * Resident memory, CPU time, session and marker value of the processes that
   * carry the marker or belong to one of `sessions` (others may be left out),
   * without blocking the event loop.
   */
  usageSnapshot(markerName: string, sessions: readonly number[]): Promise<ProcessUsageSnapshot>;
  /**
   * The TCP listeners on `ports`, found without binding any (a bind takes the port from whoever binds
   * it at that moment), with the `markerName` value of each process holding one where that can be told.
   */
  portListeners(ports: ReadonlySet<number>, markerName: string): Promise<Map<number, PortListener>>;
}

let chosen: ProcessBackend | undefined;
let chosenFor: string | undefined;

/** The backend for this process: PADDOCK_PROCESS_BACKEND (proc | portable), else by platform. */
export function processBackend(): ProcessBackend {
  const wanted = process.env.PADDOCK_PROCESS_BACKEND || (process.platform === 'linux' ? 'proc' : 'portable');
  if (chosen && chosenFor === wanted) return chosen;
  /* eslint-disable @typescript-eslint/no-require-imports */
  if (wanted === 'proc') chosen = (require('./procfs') as typeof import('./procfs')).procfsBackend;
  else if (wanted === 'portable') chosen = (require('./portable') as typeof import('./portable')).portableBackend;
  /* eslint-enable @typescript-eslint/no-require-imports */
  else throw failure(`PADDOCK_PROCESS_BACKEND is '${wanted}'; it must be 'proc' or 'portable'.`);
  chosenFor = wanted;
  return chosen;
}
