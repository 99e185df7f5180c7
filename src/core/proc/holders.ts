/**
 * Who holds a directory: processes whose cwd, root, executable or open file
 * descriptors resolve inside it. `git worktree remove --force` succeeds under
 * a live process (its cwd becomes "(deleted)"), so cleanup asks this first.
 */
import { readdirSync, readlinkSync, realpathSync } from 'node:fs';
import * as path from 'node:path';
import { commandLineOf, listPids } from './scan';

export interface Holder {
  pid: number;
  command: string;
}

/** Longest command kept for a holder (the job record caps it at 500). */
const MAX_COMMAND = 500;
const DELETED_SUFFIX = ' (deleted)';

function canonical(dir: string): string {
  const abs = path.resolve(dir);
  try {
    return realpathSync(abs);
  } catch {
    // The directory may already be gone; links then read "<path> (deleted)".
    return abs;
  }
}

function linkTarget(link: string): string | undefined {
  try {
    const target = readlinkSync(link);
    return target.endsWith(DELETED_SUFFIX) ? target.slice(0, -DELETED_SUFFIX.length) : target;
  } catch {
    return undefined;
  }
}

function isInside(target: string | undefined, root: string): boolean {
  if (target === undefined) return false;
  return target === root || target.startsWith(root.endsWith('/') ? root : `${root}/`);
}

function holds(pid: number, root: string): boolean {
  for (const entry of ['cwd', 'root', 'exe']) {
    if (isInside(linkTarget(`/proc/${pid}/${entry}`), root)) return true;
  }
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  return fds.some((fd) => isInside(linkTarget(`/proc/${pid}/fd/${fd}`), root));
}

/** Processes (other than this one) holding `dir` or anything inside it, by pid. */
export function holdersOf(dir: string): Holder[] {
  const root = canonical(dir);
  const out: Holder[] = [];
  for (const pid of listPids()) {
    if (pid === process.pid || !holds(pid, root)) continue;
    const command = commandLineOf(pid);
    if (command === '') continue; // exited while we looked
    out.push({ pid, command: command.length > MAX_COMMAND ? `${command.slice(0, MAX_COMMAND - 1)}…` : command });
  }
  return out;
}
