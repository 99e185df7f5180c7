/**
 * A process's environment as /proc shows it (`/proc/<pid>/environ`: NAME=value entries, each ended by
 * a NUL), read by the procfs backend's marker looks and by the port listeners' owner look: one parser.
 *
 * A process caught in execve(2) shows an empty environment for a moment (the new image's is not set
 * up yet; measured: 15% of reads at a process exec'ing in a loop, 9% at a freshly exec'd child), so
 * a look that finds one empty is no answer about its marker: `markedAfterExec` reads such a process
 * again a few times, and a process found empty at every read is taken as the empty environment it
 * has (`env -i`). Read as "not marked", an agent's escaped daemon caught at exec was left running
 * (bug 208).
 */
import { promises as fsp, readFileSync } from 'node:fs';
import type { EnvMarker } from './backend';
import { readBlankAgain, readBlankAgainSync, type ReadAgainPlan } from './knownBlank';
import { goneOrThrow } from './procRead';
import type { ProcStat } from './procStat';

/** The NAME=value pairs of `/proc/<pid>/environ`'s text; the first of a name repeated, as getenv(3) reads. */
export function parseEnviron(raw: string): Map<string, string> {
  const env = new Map<string, string>();
  for (const entry of raw.split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0 && !env.has(entry.slice(0, eq))) env.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return env;
}

/**
 * A process's environment, or undefined when it is gone or not ours to read (another user's); throws
 * when the read failed otherwise (procRead.ts): read as unmarked, an agent's process was missed.
 */
export function environOf(pid: number): Map<string, string> | undefined {
  try {
    return parseEnviron(readFileSync(`/proc/${pid}/environ`, 'utf8'));
  } catch (err) {
    return goneOrThrow(`/proc/${pid}/environ`, err);
  }
}

/** `environOf` through the thread pool. */
export async function environOfAsync(pid: number): Promise<Map<string, string> | undefined> {
  try {
    return parseEnviron(await fsp.readFile(`/proc/${pid}/environ`, 'utf8'));
  } catch {
    return undefined;
  }
}

/** How a process read empty is looked at again: a few times, a little apart (an exec takes about a millisecond). */
const EXEC_READS: ReadAgainPlan = { looks: 4, pauseMs: 10 };

/** One more read of each of `left` (read empty before): those now marked go into `marked`; returns those still empty. */
function readAgain(left: readonly number[], marker: EnvMarker, marked: Set<number>): number[] {
  const still: number[] = [];
  for (const pid of left) {
    const env = environOf(pid);
    if (env?.get(marker.name) === marker.value) marked.add(pid);
    else if (env !== undefined && env.size === 0) still.push(pid);
  }
  return still;
}

/**
 * Those of `blank` (processes whose environment read empty) that carry `marker` once read again
 * (knownBlank.ts: who is worth it, how often, what is remembered).
 */
export async function markedAfterExec(blank: readonly ProcStat[], marker: EnvMarker): Promise<Set<number>> {
  const marked = new Set<number>();
  await readBlankAgain(blank, EXEC_READS, async (pids) => readAgain(pids, marker, marked));
  return marked;
}

/** `markedAfterExec` for a blocking caller. */
export function markedAfterExecSync(blank: readonly ProcStat[], marker: EnvMarker): Set<number> {
  const marked = new Set<number>();
  readBlankAgainSync(blank, EXEC_READS, (pids) => readAgain(pids, marker, marked));
  return marked;
}
