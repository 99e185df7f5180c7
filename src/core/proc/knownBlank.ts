/**
 * Processes whose environment stayed empty through every read again (environ.ts): not caught at
 * exec but without one for good, as `ps` shows a process it may not read (ssh-agent, which makes
 * itself unreadable; pid 1 as root). Read again at every marker look, each cost two more `ps` runs
 * and their pauses (2–4× slower looks) or four /proc reads 10 ms apart. Remembered by pid, start
 * time and command name after a few such looks: an exec changes the name, and a process caught at a later exec under a
 * new name is read again; one that execs again under the same name after staying empty through
 * every read is not looked for (its environment was its own choice, not the agent's marker).
 */
import { mayBeMidExec, type ProcStat } from './procStat';

/** Bounded: a long-lived window sees pids come and go; the oldest are forgotten first. */
const MOST_REMEMBERED = 4096;

/**
 * Looks in a row at which a process stayed empty through every read again before it is no longer
 * read again. One such look is not enough: a process that execs over and over (a shell script
 * re-exec'ing itself) is caught at exec at a quarter of the reads, and now and then at all of a look's
 * reads; remembered then, it was missed at every later look that caught it at exec (bug 208's test
 * missed it at 7 of 30 looks). A look whose reads again find an environment starts the count again.
 */
const LOOKS_TO_REMEMBER = 3;

/** Per process (pid, start time, name): looks since its reads again last found an environment at which they found none. */
const blankLooks = new Map<string, number>();

const keyOf = (stat: ProcStat) => `${stat.pid}\0${stat.startTime}\0${stat.comm}`;

/** Whether `stat`'s process, read empty, is worth reading again: it may be caught at exec and is not known to stay empty. */
export function worthReadingAgain(stat: ProcStat): boolean {
  return mayBeMidExec(stat) && (blankLooks.get(keyOf(stat)) ?? 0) < LOOKS_TO_REMEMBER;
}

/**
 * After a look: of `blank` (read empty), those read again are counted, once more if in `stillBlank`
 * (empty at every read again), from nothing if not (an environment showed: it was at exec).
 * Call before anything else changes the counts (it judges again who was read again).
 */
export function rememberBlank(blank: readonly ProcStat[], stillBlank: ReadonlySet<number>): void {
  for (const stat of blank) {
    if (!worthReadingAgain(stat)) continue; // not read again at this look: nothing learned
    const key = keyOf(stat);
    const looks = blankLooks.get(key) ?? 0;
    blankLooks.delete(key); // re-added below: the newest last
    if (stillBlank.has(stat.pid)) blankLooks.set(key, looks + 1);
  }
  while (blankLooks.size > MOST_REMEMBERED) blankLooks.delete(blankLooks.keys().next().value!);
}

/** How often, and how far apart, a backend reads again a process it found empty. */
export interface ReadAgainPlan {
  looks: number;
  pauseMs: number;
}

/**
 * The one loop of both backends (bug 208): those of `blank` worth it are read again (`readAgain`
 * gives those still empty) up to `plan.looks` times, `plan.pauseMs` apart, while some still read
 * empty; then what was learned is remembered.
 */
export async function readBlankAgain(blank: readonly ProcStat[], plan: ReadAgainPlan, readAgain: (pids: readonly number[]) => Promise<number[]>): Promise<void> {
  let left = blank.filter(worthReadingAgain).map((stat) => stat.pid);
  for (let look = 0; look < plan.looks && left.length > 0; look++) {
    await new Promise((resolve) => setTimeout(resolve, plan.pauseMs));
    left = await readAgain(left);
  }
  rememberBlank(blank, new Set(left));
}

/** `readBlankAgain` for a blocking caller: the pauses are spent blocked (milliseconds, and only when one read empty). */
export function readBlankAgainSync(blank: readonly ProcStat[], plan: ReadAgainPlan, readAgain: (pids: readonly number[]) => number[]): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  let left = blank.filter(worthReadingAgain).map((stat) => stat.pid);
  for (let look = 0; look < plan.looks && left.length > 0; look++) {
    Atomics.wait(pause, 0, 0, plan.pauseMs);
    left = readAgain(left);
  }
  rememberBlank(blank, new Set(left));
}
