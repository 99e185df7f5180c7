/**
 * Whether a process tree still works. git prints nothing while it stages a worktree, so a bound
 * is all a caller had: a capture's `add` stopped (SIGSTOP) or waiting on a clean filter that never
 * answers held the cleanup for the whole bound (ten minutes) before anything was said, while an
 * `add` that hashes a big repository for minutes must be let run. What a tree does tells the two
 * apart: a member running or waiting on the disk (R, D) at a look, CPU time used since the last
 * look, or members come or gone since it (a filter that works by starting short processes: on the
 * portable backend `ps` counts CPU in whole seconds, and each of them uses next to none), is progress; a tree whose members are all asleep or stopped and use no CPU for `quietMs`
 * has stalled. A look that cannot be taken counts as progress: nothing is stopped on ignorance.
 */
import { performance } from 'node:perf_hooks';
import { processBackend } from './backend';
import { isGoneState } from './procStat';

export interface StallWatchOptions {
  /** The tree's session (a detached child's pid). */
  sid: number;
  /** How long without progress is a stall. */
  quietMs: number;
  /** Called once, at the first stall. */
  onStall: () => void;
}

/**
 * What one look found: whether the tree was seen working, and its CPU time so far. One process table
 * answers all of it (one walk of /proc, one `ps` on the portable backend): the members and their
 * states from its live processes, the CPU time from all of them, zombies included.
 */
async function look(sid: number): Promise<{ busy: boolean; cpuTime: number; members: string } | null> {
  const work = await processBackend().sessionWorkAsync(sid);
  const members = work.filter((p) => !isGoneState(p.state));
  // Gone, or not seen yet: nothing to judge.
  if (members.length === 0) return null;
  const cpuTime = work.reduce((sum, p) => sum + p.cpuTime, 0);
  const pids = members.map((p) => p.pid).sort((a, b) => a - b).join(',');
  return { busy: members.some((p) => p.state === 'R' || p.state === 'D'), cpuTime, members: pids };
}

/** Watches session `sid` until the returned function is called; calls onStall once it has made no progress for quietMs. */
export function watchForStall(opts: StallWatchOptions): () => void {
  // Often enough that a stall is seen soon after quietMs, rarely enough to cost nothing (one look at the process
  // table), and never more than 5 s apart: runGit's quiet time (GIT_STALL_MS, 60 s) gets a look every 5 s, twelve
  // a quiet time. Below 40 s (the tests' 1-2 s) it is eight looks a quiet time, not four: on the portable backend
  // procps counts CPU in whole seconds, so a tree that works shows its progress only to a look that catches it
  // running or a member come or gone, and with four looks captureStall's 'clean filter that works slowly' was
  // judged stalled under load (2 runs of 2).
  const everyMs = Math.max(200, Math.min(5000, Math.floor(opts.quietMs / 8)));
  // A monotonic clock: a wall clock stepped forward (a resume from suspend, NTP) is no quiet time.
  let lastProgress = performance.now();
  let lastCpu: number | undefined;
  let lastMembers: string | undefined;
  let ended = false;
  let timer: NodeJS.Timeout | undefined;
  const next = () => {
    if (ended) return;
    timer = setTimeout(() => void step(), everyMs);
    timer.unref();
  };
  const step = async () => {
    const seen = await look(opts.sid).catch(() => null);
    if (ended) return;
    const changed = seen !== null && ((lastCpu !== undefined && seen.cpuTime !== lastCpu) || (lastMembers !== undefined && seen.members !== lastMembers));
    if (seen === null || seen.busy || changed) lastProgress = performance.now();
    if (seen !== null) ({ cpuTime: lastCpu, members: lastMembers } = seen);
    if (performance.now() - lastProgress >= opts.quietMs) {
      ended = true;
      opts.onStall();
      return;
    }
    next();
  };
  next();
  return () => {
    ended = true;
    clearTimeout(timer);
  };
}
