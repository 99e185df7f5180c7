/**
 * Where what an ended agent left running is looked for once its end is recorded, and how it is
 * ended: its PTY session, the sessions its escapees lead, and the processes its exit scan found —
 * never the job's marker again (from the recorded end on, a retry's processes carry it too).
 *
 * A session is known by a number, and a number is handed out again once its session empties: the
 * agent's session may end during the grace and another job's agent's new session get its number.
 * So a session's members are taken as the agent's only while a process known to be the agent's is
 * among them: the scan's processes by identity (pid + start time), and those members proven so at
 * an earlier look. A session's number is never handed out while it has a member, so one known
 * member still in it proves the others joined this same session. Without one the session is
 * skipped — never another's process — unless a look moments before proved it (`continues`): a
 * fork whose leader exited between two looks is still reached; one alone in a session not looked
 * at for longer is not.
 */
import { sessionsMembers, signalEachIfSame, stillRunning, type ProcStat } from '../proc';
import { performance } from 'node:perf_hooks';
import { markedSessions } from '../proc/scan';
import { lookAgain } from '../proc/lookAgain';
import { setTimeout as sleep } from 'node:timers/promises';

const POLL_MS = 50;
/** The longest gap between two looks over which a session is taken as the same one without a known member. */
export const CONTINUITY_MS = 500;
/**
 * How much of the time a look spent on tries that failed (lookAgain: 500 ms apart) is not counted in
 * that gap: one retried look alone outran CONTINUITY_MS, and a fork whose leader exited meanwhile was
 * left running. Bounded: the allocator coming round to the number still needs pid_max forks.
 */
const RETRIED_LOOK_ALLOWANCE_MS = 2_000;
/** How long SIGKILLed processes get to disappear before they are reported as survivors. */
const KILL_WAIT_MS = 2000;

export class LeftScope {
  private readonly sessions: number[];
  /** pid → start time of every process proven the agent's. */
  private readonly known = new Map<number, number>();
  /** session → when the last look that found it the agent's began. */
  private readonly provenAt = new Map<number, number>();

  /** `found`: the scan at the agent's exit; `sid`: its ended PTY session leader (never a member). */
  constructor(
    private readonly found: readonly ProcStat[],
    private readonly sid: number,
  ) {
    this.sessions = markedSessions(found, sid);
    for (const p of found) this.known.set(p.pid, p.startTime);
  }

  private isKnown(p: ProcStat): boolean {
    return this.known.get(p.pid) === p.startTime;
  }

  /**
   * Whether session `s`, proven the agent's at a look that began at `provenAt`, is still that session
   * though no member known then is left (its leader exited after forking one): it had a member
   * throughout unless it emptied, and then its number is handed out again only once the kernel's
   * cyclic allocator has come round to it — pid_max forks — which a short gap rules out. A process
   * holding the number itself, not known, would be the leader of a new session: never taken.
   */
  private continues(s: number, members: readonly ProcStat[], now: number): boolean {
    const at = this.provenAt.get(s);
    return at !== undefined && now - at <= CONTINUITY_MS && !members.some((p) => p.pid === s && !this.isKnown(p));
  }

  /** What of the scope still runs: members of its sessions that a known member vouches for, and the scan's processes. */
  async stillThere(): Promise<ProcStat[]> {
    const byPid = new Map<number, ProcStat>();
    // One look (one walk of /proc, one `ps`) for every session: a look per session multiplied with
    // the process count past CONTINUITY_MS. Monotonic: a wall clock set back would stretch the gap.
    // Every look here is tried again while it fails: one thrown out of the grace left what it was
    // ending running, never sent SIGKILL (bug 206).
    const firstTry = performance.now();
    const [lookedAt, found] = await lookAgain(async () => [performance.now(), await sessionsMembers(this.sessions)] as const);
    const gapEnd = lookedAt - Math.min(lookedAt - firstTry, RETRIED_LOOK_ALLOWANCE_MS);
    const all = found.filter((p) => p.pid !== process.pid && p.pid !== this.sid);
    for (const s of this.sessions) {
      const members = all.filter((p) => p.sid === s);
      if (!members.some((p) => this.isKnown(p)) && !this.continues(s, members, gapEnd)) {
        this.provenAt.delete(s); // emptied, or not looked at for too long: its number may be another's
        continue;
      }
      this.provenAt.set(s, lookedAt);
      for (const p of members) {
        this.known.set(p.pid, p.startTime);
        byPid.set(p.pid, p);
      }
    }
    for (const p of await lookAgain(() => stillRunning(this.found))) if (p.pid !== process.pid && p.pid !== this.sid) byPid.set(p.pid, p);
    return [...byPid.values()];
  }

  /** TERM (and CONT, for a stopped one), up to `graceMs`, then KILL: each by identity; returns what still runs. */
  async end(graceMs: number): Promise<ProcStat[]> {
    const targets = new Map<number, ProcStat>();
    const discover = async (): Promise<ProcStat[]> => {
      const fresh: ProcStat[] = [];
      for (const p of await this.stillThere()) {
        if (targets.get(p.pid)?.startTime === p.startTime) continue;
        targets.set(p.pid, p);
        fresh.push(p);
      }
      return fresh;
    };
    const signal = async (procs: ProcStat[], sig: 'SIGTERM' | 'SIGKILL') => {
      const sent = await lookAgain(() => signalEachIfSame(procs, sig));
      // A stopped process acts on SIGTERM only once continued.
      if (sig === 'SIGTERM') await lookAgain(() => signalEachIfSame(sent, 'SIGCONT'));
    };
    const waitGone = async (deadline: number, sig: 'SIGTERM' | 'SIGKILL'): Promise<ProcStat[]> => {
      for (;;) {
        await signal(await discover(), sig);
        const left = await lookAgain(() => stillRunning([...targets.values()]));
        if (left.length === 0 || Date.now() >= deadline) return left;
        await sleep(POLL_MS);
      }
    };
    const left = await waitGone(Date.now() + Math.max(0, graceMs), 'SIGTERM');
    if (left.length > 0) {
      await signal(left, 'SIGKILL');
      await waitGone(Date.now() + KILL_WAIT_MS, 'SIGKILL');
    }
    return this.stillThere();
  }
}
