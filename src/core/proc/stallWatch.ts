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

/** No process carries it: the usage look is asked for the session alone. */
const NO_MARKER = 'PADDOCK_STALL_WATCH_NONE';

export interface StallWatchOptions {
  /** The tree's session (a detached child's pid). */
  sid: number;
  /** How long without progress is a stall. */
  quietMs: number;
  /** Called once, at the first stall. */
  onStall: () => void;
}

/** What one look found: whether the tree was seen working, and its CPU time so far. */
async function look(sid: number): Promise<{ busy: boolean; cpuSeconds: number; members: string } | null> {
  const backend = processBackend();
  const [members, usage] = await Promise.all([backend.sessionsMembersAsync(new Set([sid])), backend.usageSnapshot(NO_MARKER, [sid])]);
  // Gone, or not seen yet: nothing to judge.
  if (members.length === 0) return null;
  const cpuSeconds = usage.processes.filter((p) => p.sid === sid).reduce((sum, p) => sum + p.cpuSeconds, 0);
  const pids = members.map((p) => p.pid).sort((a, b) => a - b).join(',');
  return { busy: members.some((p) => p.state === 'R' || p.state === 'D'), cpuSeconds, members: pids };
}

/** Watches session `sid` until the returned function is called; calls onStall once it has made no progress for quietMs. */
export function watchForStall(opts: StallWatchOptions): () => void {
  // Often enough that a stall is seen soon after quietMs, rarely enough to cost nothing (one walk of the process table).
  const everyMs = Math.max(200, Math.min(5000, Math.floor(opts.quietMs / 4)));
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
    const changed = seen !== null && ((lastCpu !== undefined && seen.cpuSeconds !== lastCpu) || (lastMembers !== undefined && seen.members !== lastMembers));
    if (seen === null || seen.busy || changed) lastProgress = performance.now();
    if (seen !== null) ({ cpuSeconds: lastCpu, members: lastMembers } = seen);
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
