/**
 * Processes whose environment stayed empty through every read again (environ.ts): not caught at
 * exec but without one for good, as `ps` shows a process it may not read (ssh-agent, which makes
 * itself unreadable; pid 1 as root). Read again at every marker look, each cost two more `ps` runs
 * and their pauses (2–4× slower looks) or four /proc reads 10 ms apart. Remembered by pid, start
 * time and command name: an exec changes the name, and a process caught at a later exec under a
 * new name is read again; one that execs again under the same name after staying empty through
 * every read is not looked for (its environment was its own choice, not the agent's marker).
 */
import { mayBeMidExec, type ProcStat } from './procStat';

/** Bounded: a long-lived window sees pids come and go; the oldest are forgotten first. */
const MOST_REMEMBERED = 4096;

const remembered = new Set<string>();

const keyOf = (stat: ProcStat) => `${stat.pid}\0${stat.startTime}\0${stat.comm}`;

/** Whether `stat`'s process, read empty, is worth reading again: it may be caught at exec and is not known to stay empty. */
export function worthReadingAgain(stat: ProcStat): boolean {
  return mayBeMidExec(stat) && !remembered.has(keyOf(stat));
}

/** Remembers the processes of `stats` that are in `stillBlank`, read empty at every read again. */
export function rememberBlank(stats: readonly ProcStat[], stillBlank: ReadonlySet<number>): void {
  for (const stat of stats) {
    if (!stillBlank.has(stat.pid)) continue;
    remembered.delete(keyOf(stat)); // re-added below: the newest last
    remembered.add(keyOf(stat));
  }
  while (remembered.size > MOST_REMEMBERED) remembered.delete(remembered.values().next().value!);
}
