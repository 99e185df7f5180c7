/**
 * Finding a process recorded in another pid namespace by its pid there. /proc lists this namespace's
 * processes and those of every namespace below it; each one's `ns/pid` link names its namespace and
 * the last `NSpid` of its status is its pid there. So a process recorded in a namespace seen here is
 * found exactly (then judged here by start time), or provably gone; so is one recorded in any
 * namespace when this process is in the initial one, of which every other descends (a namespace that
 * has ended — a closed Flatpak, a restarted dev container — has no process left to find). Only a
 * namespace beside or above this one cannot be seen: `unseen`.
 *
 * Read after the record (a process recorded then had started): a scan of every process, so the
 * extension host's paths take it asynchronously and only when a record names another namespace.
 */
import { promises as fsp, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { mapConcurrently } from '../common/limiter';
import { inInitialPidNamespace, ownPidNamespace } from './pidNamespace';

/** The pid here of the process recorded as `pid` in namespace `ns`; undefined when it is provably gone; `unseen`. */
export type NamespaceLookup = (ns: string, pid: number) => number | undefined | 'unseen';

interface Seen {
  ns: string;
  status: string;
}

function lookupFrom(processes: ReadonlyMap<number, Seen>): NamespaceLookup {
  const seenNamespaces = new Set<string>();
  const byKey = new Map<string, number>();
  for (const [here, p] of processes) {
    seenNamespaces.add(p.ns);
    const line = /^NSpid:\s*(.*)$/m.exec(p.status)?.[1].trim().split(/\s+/);
    const inner = line ? Number(line[line.length - 1]) : NaN;
    if (Number.isInteger(inner)) byKey.set(`${p.ns} ${inner}`, here);
  }
  const initial = inInitialPidNamespace();
  return (ns, pid) => {
    const here = byKey.get(`${ns} ${pid}`);
    if (here !== undefined) return here;
    return initial || seenNamespaces.has(ns) ? undefined : 'unseen';
  };
}

function pidsOf(names: readonly string[]): number[] {
  return names.filter((n) => /^[1-9][0-9]*$/.test(n)).map(Number);
}

/**
 * Each process in a namespace other than this one's (only they can be what is looked up), with its
 * status. A process not readable (another user's: its namespace link is refused) is left out: a
 * process recorded in this store is this user's.
 */
export async function namespaceView(): Promise<NamespaceLookup> {
  const own = ownPidNamespace();
  const seen = new Map<number, Seen>();
  let names: string[];
  try {
    names = await fsp.readdir('/proc');
  } catch {
    names = [];
  }
  await mapConcurrently(pidsOf(names), 32, async (pid) => {
    try {
      const ns = await fsp.readlink(`/proc/${pid}/ns/pid`);
      if (ns !== own) seen.set(pid, { ns, status: await fsp.readFile(`/proc/${pid}/status`, 'utf8') });
    } catch {
      // exited meanwhile, or not this user's
    }
  });
  return lookupFrom(seen);
}

/** `namespaceView` in one blocking look: for the judgments made without a table (a worker's claim). */
export function namespaceViewSync(): NamespaceLookup {
  const own = ownPidNamespace();
  const seen = new Map<number, Seen>();
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    names = [];
  }
  for (const pid of pidsOf(names)) {
    try {
      const ns = readlinkSync(`/proc/${pid}/ns/pid`);
      if (ns !== own) seen.set(pid, { ns, status: readFileSync(`/proc/${pid}/status`, 'utf8') });
    } catch {
      // exited meanwhile, or not this user's
    }
  }
  return lookupFrom(seen);
}
