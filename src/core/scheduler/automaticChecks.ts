/**
 * The automatic check (issue 14): when an attempt — an agent started as one of
 * several at one task, with a `group` — ends completed or failed, the leader
 * runs the repository's check command in its worktree, within capacity. Only
 * attempts: a single agent is checked when a person asks (Run Check,
 * `paddock check`), so upgrading never starts checks on old agents.
 *
 * Crash-safe by what the record says: a check `running` or `queued` whose
 * runner process is gone (the leader died mid-check) is ended (what it left
 * running carries the job's marker) and run again by the next leader's pass.
 * A check older than the agent's last end (a retry ended since) is run again.
 */
import { describeError, PaddockError } from '../common/errors';
import { findCheckCommand } from '../check/checkCommand';
import { checkInHand, runCheck } from '../operations/check';
import type { HeldLock } from '../coordinator/ownedLock';
import type { OperationContext } from '../operations/context';
import { processTableSource, readProcStat, type StatSource } from '../proc';
import { stopLocked } from '../operations/stop';
import type { JobRecord } from '../store/schema';
import { checkOutOfDate } from '../check/checkCurrency';
import { leaderRunsCheck } from '../store/checkRunner';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { PADDOCK_JSON } from '../repoConfig/paddockJson';
import { TRUST_FILE } from '../repoConfig/trust';

/**
 * What decides whether an attempt has a check command in force, short of reading it: the repository's
 * `.paddock.json` and the store's allow list (each by identity, size and times: any write changes
 * them) and the adapter's trust of the repository. Stat calls, without blocking.
 */
async function configLook(repo: string, home: string, repoTrusted?: (repo: string) => boolean): Promise<string> {
  const id = (file: string) => stat(file).then((s) => `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`, () => '-');
  const [config, trust] = await Promise.all([id(join(repo, PADDOCK_JSON)), id(join(home, TRUST_FILE))]);
  let trusted = false;
  try {
    trusted = repoTrusted?.(repo) === true;
  } catch {
    // judged as the check's own look judges it: not trusted
  }
  return `${config}|${trust}|${trusted}`;
}

/** The attempt's own check command (recorded on it): part of what was judged. */
function ownCommand(job: JobRecord): string {
  return `|${job.settings.checkCommand ?? ''}`;
}

/** A check recorded as running or waiting: whether it still is depends on its runner process. */
export function checkUnderWay(job: JobRecord): boolean {
  return job.check?.state === 'running' || job.check?.state === 'queued';
}

/** Whether the leader should (re)run this agent's check now; `stats` judges a recorded runner (a table read after the record). */
export function needsAutomaticCheck(job: JobRecord, stats: StatSource = readProcStat): boolean {
  // The same test that leaves a gone runner's check to the leader, not to readers (checkRunner.ts).
  if (!leaderRunsCheck(job)) return false;
  const c = job.check;
  if (!c) return true;
  if (checkUnderWay(job)) return !checkInHand(job, stats);
  return checkOutOfDate(job);
}

export class AutomaticChecks {
  /** Checks this process runs now (by job id). */
  private readonly running = new Set<string>();
  /**
   * `id@endedAt` of attempts found to have no check command, or an untrusted one, with what that was
   * judged on (`configLook`): not looked at again for that execution until that changes (a `paddock
   * allow`, an edited `.paddock.json`): it was never looked at again by this leader, however trusted since.
   */
  private readonly unconfigured = new Map<string, string>();
  /** `id@endedAt` of attempts whose check could not be started (looked at again on a later pass, not waited for). */
  private readonly notStarted = new Set<string>();

  constructor(
    private readonly ctx: OperationContext,
    private readonly opts: {
      track<T>(p: Promise<T>): Promise<T>;
      repoTrusted?: (repo: string) => boolean;
      /** Job `id`'s operation lock if it is free; when it is held, undefined, and a pass comes back once it is let go. */
      takeOrWatch(id: string): Promise<HeldLock | undefined>;
    },
  ) {}

  /**
   * Whether this leader found nothing to run for `job`'s latest run: no check command, or an untrusted
   * one (it does not look again), or the check could not be started (tried again only on a later pass).
   */
  foundNothingToRun(job: JobRecord): boolean {
    const key = `${job.id}@${job.lifecycle.endedAt}`;
    return this.unconfigured.has(key) || this.notStarted.has(key);
  }

  /**
   * Forgets "no command" for attempts whose configuration or trust changed since (one look per
   * repository a pass): each pass, and an exiting coordinator before it hands over what is left.
   */
  async forgetChangedConfig(jobs: readonly JobRecord[]): Promise<void> {
    const looks = new Map<string, Promise<string>>();
    for (const job of jobs) {
      const key = `${job.id}@${job.lifecycle.endedAt}`;
      const then = this.unconfigured.get(key);
      if (then === undefined) continue;
      if (!looks.has(job.repo)) looks.set(job.repo, configLook(job.repo, this.ctx.store.home, this.opts.repoTrusted));
      if ((await looks.get(job.repo)) + ownCommand(job) !== then) {
        this.unconfigured.delete(key);
        this.notStarted.delete(key);
      }
    }
  }

  private async markUnconfigured(job: JobRecord, look: Promise<string>): Promise<void> {
    this.unconfigured.set(`${job.id}@${job.lifecycle.endedAt}`, (await look) + ownCommand(job));
  }

  /**
   * Starts, in the background, the checks due among `jobs` (leader only). A runner is judged against
   * one process table read after the records, without blocking: on the portable backend each look
   * at one process would be a `ps` run on the window's event loop, every pass.
   */
  async schedule(jobs: readonly JobRecord[]): Promise<void> {
    if (this.unconfigured.size > 0) await this.forgetChangedConfig(jobs);
    const candidates = jobs.filter((job) => !this.running.has(job.id) && !this.unconfigured.has(`${job.id}@${job.lifecycle.endedAt}`));
    const stats = candidates.some(checkUnderWay) ? await processTableSource() : readProcStat;
    for (const job of candidates) {
      if (this.running.has(job.id) || !needsAutomaticCheck(job, stats)) continue;
      this.running.add(job.id);
      void this.opts.track(this.check(job).finally(() => this.running.delete(job.id)));
    }
  }

  private async check(job: JobRecord): Promise<void> {
    const { store } = this.ctx;
    // Taken before the command is read: a change made while it reads is a change next pass.
    const look = configLook(job.repo, store.home, this.opts.repoTrusted);
    try {
      const command = await findCheckCommand(job, { home: store.home, repoTrusted: this.opts.repoTrusted });
      if (!command) {
        await this.markUnconfigured(job, look);
        return;
      }
      const c = job.check;
      if (c && (c.state === 'running' || c.state === 'queued') && c.runner) {
        // Its runner died: what the check left running goes first, then the check runs again.
        this.ctx.log(`the process running the check of ${job.id} is gone; running it again`);
        const lock = await this.opts.takeOrWatch(job.id);
        if (!lock) return; // someone is working on it: judged again once they let go
        try {
          await stopLocked(store, job.id, { force: false });
          await store.update(job.id, (j) => ({ ...j, check: j.check && { ...j.check, state: 'queued', runner: null, summary: 'The process running the check ended before it finished; it runs again.' } }));
        } finally {
          await lock.release();
        }
      }
      await runCheck(this.ctx, job.id, { waitForSlot: false, repoTrusted: this.opts.repoTrusted }, command);
    } catch (err) {
      if (err instanceof PaddockError && err.code === 'UNTRUSTED_CONFIG') await this.markUnconfigured(job, look);
      // Nothing runs it before some change to the store brings a pass: `coordinate --until-idle` does not wait for that.
      else this.notStarted.add(`${job.id}@${job.lifecycle.endedAt}`);
      this.ctx.log(`automatic check of ${job.id}: ${describeError(err)}`);
    }
  }
}
