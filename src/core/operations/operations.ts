/**
 * The operations: the one door through which a person's request (from the
 * CLI or a window) changes an agent. Each runs under the job's operation lock
 * and refuses with the rule's one sentence (`rules.ts`). Launching is the
 * scheduler's: an operation that queues an execution asks it to pump.
 */
import { describeError, failure, PaddockError, usageError } from '../common/errors';
import { resolveCommit } from '../git';
import type { RestoreResult } from '../git';
import { assertStartRunnable, startRepo } from './startInput';
import { runtimeDirFor } from '../protocol/runtimeDir';
import { removeRequestEnv, sealRequestEnv } from '../coordinator/requestEnv';
import { restoreAgent } from '../coordinator/restoreAgent';
import { planStart, StartRequest } from '../coordinator/startPlan';
import { allocatePorts } from '../coordinator/ports';
import { planWorktreeSetup, recordedWorktreeSettings } from '../coordinator/worktreeSetupPlan';
import { branchNameFor, worktreePathFor } from '../coordinator/worktreePath';
import { lifecycleDetail } from '../store/leftoverWords';
import { isTerminalState, JobRecord } from '../store/schema';
import { dropStopRequest, keepStopRequest } from '../store/stopRequest';
import { acquireJobLock, OperationContext, okJobs, withJobLock } from './context';
import { LOCK_UNWRITABLE } from '../coordinator/lockUnwritable';
import type { HeldLock } from '../coordinator/ownedLock';
import { failJob } from './failJob';
import { beginRetry, personRetriedSince } from './retry';
import { canStopUnreadable, failedToLaunch, hasRunningWork, retryCleanupBlocker } from './rules';
import { looksAbandonedStart, recoverAbandonedStart } from '../scheduler/abandonedStart';
import { assertTextLength } from '../common/textLimit';
import { MAX_PROMPT_CHARS } from '../profiles';

import { sendToAgent } from './send';
import { heldReviewSendLock } from './reviewSendLock';
import { enterGroupCleanup, sweepDeadCleanupMarkers } from './groupLock';
import { sendReview, type ReviewSent } from './sendReview';
import { stopLocked } from './stop';
import { stopUnreadable } from './stopUnreadable';
import type { CleanupOptions, CleanupReport, StopAllReport, StopReport } from './types';
import { applyLocked, type ApplyReport } from './apply';
import { forgetAgent, type ForgetReport, type ForgetRequest } from './forget';
import { archivedWork, type ArchivedWork } from './archivedWork';
import type { LandingChoices } from './landingPrep';
import { mergeLocked, type MergeReport, type MergeRequest } from './merge';
import { planPrune, prune, type PrunePlan, type PruneReport, type PruneRequest } from './prune';
import { pullRequestLocked, type PullRequestReport, type PullRequestRequest } from './pullRequest';
import { updateLocked, type UpdateReport, type UpdateRequest } from './update';
import { sweepLandingWorktrees } from '../git';
import { landingScratch } from './merge';
import { settlingOnError, startEarly } from '../common/early';

export interface RetryOptions {
  prompt?: string;
  onWarning?: (text: string) => void;
  /** Called once the retry has begun, when it begins a new conversation: the agent saved none to continue (retryResume.ts). */
  onNewConversation?: () => void;
}

/** The scheduler, as the operations see it. */
export interface Launcher {
  /** Launches what is queued, if this process leads; resolves when done. */
  pump(): Promise<void>;
  /** The pump an operation asks for as it ends (a slot it freed): a window's in the background; a one-shot's is left to a coordinator the CLI makes sure of. */
  pumpForOperation(): Promise<void>;
}

export class Operations {
  constructor(private readonly ctx: OperationContext, private readonly launcher: Launcher) {}

  /**
   * Validates the request, allocates the job and — when capacity allows and this
   * process leads — creates its worktree and spawns its worker. Returns the
   * record (queued when it must wait). Throws the reason, with the agent's id,
   * when the agent failed to start (the record stays, `failed`).
   */
  async start(request: StartRequest): Promise<JobRecord> {
    const { store, env } = this.ctx;
    const settings = this.ctx.settings();
    const plan = planStart(request, settings, env);
    const repo = await startRepo(request.repo);
    // The base commit is asked while the setup is planned (a git process of its own), and both are known
    // before the record is written: a bad base, like every bad input, creates nothing (exit 2).
    const baseCommit = startEarly(resolveCommit(repo, plan.base));
    // The job's operation lock, taken before its record exists and held until its worktree is assigned:
    // a queue pump (in any process) leaves the job to this start meanwhile, and finds it free at once
    // (its owner dead) when this process dies half-way.
    const preparing: { lock?: HeldLock } = {};
    // `.paddock.json` and the settings; an untrusted file's commands refuse the start here, before anything exists.
    const created = await settlingOnError([baseCommit], async () => {
      const setup = await planWorktreeSetup(repo, settings, store.home);
      const baseSha = await baseCommit;
      assertStartRunnable(plan.command[0], { ...env, ...plan.env }, repo);
      const record = await store.create({
        title: plan.title,
        repo,
        worktree: null,
        branch: null,
        base: plan.base,
        baseSha: null,
        profile: plan.profileName,
        command: plan.command,
        cwd: repo,
        envNames: Object.keys(plan.env).sort(),
        settings: { ...plan.settings, worktree: recordedWorktreeSettings(setup) },
        autoApprove: plan.autoApprove,
        group: request.group,
      }, async (newId) => {
        preparing.lock = await acquireJobLock(store, newId);
      }).catch(async (err) => {
        await preparing.lock?.release();
        throw err;
      });
      return { worktreeSetup: setup, job: record, baseSha };
    });
    const { worktreeSetup, baseSha } = created;
    let job = created.job;
    const id = job.id;
    this.ctx.log(`agent ${id} created: ${plan.command.join(' ')}`);
    try {
      // Before the worktree is assigned (until then no pump launches it): whoever launches it runs it with this.
      await sealRequestEnv(store.jobDir(id), id, { ...env, ...plan.env }, runtimeDirFor(env));
      await allocatePorts(store, id, worktreeSetup.ports, worktreeSetup.portRange);
      const worktree = worktreePathFor(repo, id, settings.worktreeRoot);
      job = await store.update(id, (j) => ({ ...j, baseSha, worktree, branch: branchNameFor(id), cwd: worktree }));
    } catch (err) {
      removeRequestEnv(store.jobDir(id));
      await failJob(store, id, describeError(err));
      this.ctx.changed(id);
      throw failure(`Agent ${id} failed to start: ${describeError(err)}`);
    } finally {
      await preparing.lock?.release();
    }
    this.ctx.changed(id);
    await this.launcher.pump();
    job = await store.read(id);
    if (failedToLaunch(job)) {
      throw failure(`Agent ${id} failed to start: ${lifecycleDetail(job) ?? 'unknown reason'}`);
    }
    return job;
  }

  /** Stops an agent and returns only when it is proven stopped, or says what could not be proven. */
  async stop(id: string, opts: { force?: boolean } = {}): Promise<StopReport> {
    let report: StopReport;
    try {
      report = await withJobLock(this.ctx, id, 'stop', async (): Promise<StopReport> => {
        const job = await this.ctx.store.read(id);
        // Under the lock: a launcher would hold it, so a start left `starting` with no launch is abandoned.
        if (!looksAbandonedStart(job)) return stopLocked(this.ctx.store, id, { force: opts.force ?? false });
        await recoverAbandonedStart(this.ctx, job);
        const state = (await this.ctx.store.read(id)).lifecycle.state;
        return { id, generation: job.lifecycle.generation, action: 'cancelled-queued', stopped: true, state, ended: [], reason: null };
      }).catch(async (err: unknown) => {
        if (!(err instanceof PaddockError && err.code === LOCK_UNWRITABLE)) throw err;
        // Nothing can be written in the store (an agent filled its disk, a read-only store): the lock is free and
        // nobody can take it, so the stop, the one thing that frees the disk, goes on without it. Its writes are
        // best effort, and the stop is kept in the runtime directory first: the worker cannot record it, and a
        // reader then records `cancelled` from it, not `orphaned` (which an automatic restart would run again).
        this.ctx.log(`stopping agent ${id} without its operation lock: ${describeError(err)}`);
        const unwritable = describeError(err).replace(/^.*cannot be taken: /, '');
        // Its reads do not wait for the record lock either (each waited 20 s to record a gone worker: a stop of 143 s).
        const store = this.ctx.store.withoutLockWait();
        // As stored: a read that judged the worker gone without recording it has dropped the execution the request names.
        const job = await store.readStored(id);
        const kept = await keepStopRequest(job);
        try {
          // Space may come back meanwhile and a retry start generation N+1: this stop is of generation N only.
          const stopped = await stopLocked(store, id, { force: opts.force ?? false, generation: job.lifecycle.generation, lockless: true });
          if (!stopped.stopped && kept === 'kept') await dropStopRequest(job);
          return { ...stopped, unwritable: { why: unwritable, kept } };
        } catch (err) {
          // Not stopped: a request left would turn a later crash of this worker into a stop (an earlier stop's stays).
          if (kept === 'kept') await dropStopRequest(job);
          throw err;
        }
      });
    } catch (err) {
      if (!(err instanceof PaddockError && err.code === 'UNREADABLE')) throw err;
      // Its processes are found by their marker; the damaged record is left as it is (the person's to inspect).
      const graceMs = Math.round(this.ctx.settings().stopGraceSeconds * 1000);
      report = await stopUnreadable(this.ctx.store, id, { force: opts.force ?? false, graceMs });
    }
    this.ctx.changed(id);
    await this.launcher.pumpForOperation();
    return report;
  }

  /** Stops every running or queued agent, every check still running and what ended agents left running; proves each stopped or lists which not and why. */
  async stopAll(opts: { force?: boolean } = {}): Promise<StopAllReport> {
    const entries = await this.ctx.store.list();
    const jobs = okJobs(entries).filter(hasRunningWork);
    // An unreadable record whose worker still runs is a running agent too; `stop` ends it by its marker.
    const unreadableRunning = entries.filter((e) => !e.ok && canStopUnreadable(e)).map((e) => e.id);
    const failed = (id: string, generation: number, state: StopReport['state']) => (err: unknown): StopReport => ({ id, generation, action: 'none', stopped: false, state, ended: [], reason: describeError(err) });
    const reports = await Promise.all([
      ...jobs.map((j) => this.stop(j.id, opts).catch(failed(j.id, j.lifecycle.generation, j.lifecycle.state))),
      ...unreadableRunning.map((id) => this.stop(id, opts).catch(failed(id, 0, 'unreadable'))),
    ]);
    return {
      stopped: reports.filter((r) => r.stopped).map((r) => r.id),
      notStopped: reports.filter((r) => !r.stopped).map((r) => ({ id: r.id, reason: r.reason ?? 'unknown' })),
    };
  }

  /**
   * A new execution of an ended agent in its existing worktree (with the profile's resume arguments).
   * `prompt`: given to the new execution — in its argv when the resume arguments have a `{prompt}`,
   * otherwise typed in (with Enter) by its worker once the agent asks for it, as a start's is
   * (`beginRetry`). `onWarning`: what went wrong once the retry had taken effect (a damaged part of
   * the store), said without failing it.
   */
  async retry(id: string, opts: RetryOptions = {}): Promise<JobRecord> {
    const prompt = opts.prompt;
    if (prompt !== undefined) assertTextLength(prompt, MAX_PROMPT_CHARS, 'prompt');
    await withJobLock(this.ctx, id, 'retry', () => beginRetry(this.ctx, id, false, prompt, opts.onWarning, opts.onNewConversation));
    this.ctx.changed(id);
    await this.launcher.pump();
    const job = await this.ctx.store.read(id);
    if (failedToLaunch(job)) {
      throw failure(`Agent ${id} failed to restart: ${lifecycleDetail(job) ?? 'unknown reason'}`);
    }
    return job;
  }

  /**
   * Cleans an agent up now (stopping it if needed); a person's request, so backoff starts over. An
   * attempt of a group waits for a keep of the group under way, then marks itself under way so a keep
   * starting later leaves it alone (`enterGroupCleanup`: before the capacity slot and the job's lock,
   * so a Clean Up waiting for a keep holds no slot the keep needs); other Clean Ups do not wait for it.
   */
  async cleanup(id: string, opts: CleanupOptions = {}): Promise<CleanupReport> {
    const job = await this.ctx.store.read(id); // bad or unknown ids fail before any waiting
    if (!job.group) return this.cleanupOf(job, opts);
    const marker = await enterGroupCleanup(this.ctx.store, job.group.id, id);
    try {
      return await this.cleanupOf(await this.ctx.store.read(id), opts);
    } finally {
      await marker.release();
      await sweepDeadCleanupMarkers(this.ctx.store, job.group.id, id).catch(() => undefined); // best effort: they count for nothing
    }
  }

  /**
   * Keep This One's cleanup of another attempt (the keep holds its group's keep lock): none when, by the
   * time it holds the attempt's job lock, a person has retried it since the keep read it (`seen`) — the
   * person's later choice stands. Undefined then. The scheduler's own restarts are no one's choice: the
   * attempt is still cleaned up (`personRetriedSince`).
   */
  async cleanupForKeep(id: string, seen: JobRecord): Promise<CleanupReport | undefined> {
    const still = async () => !personRetriedSince(seen, await this.ctx.store.read(id));
    return this.cleanupOf(await this.ctx.store.read(id), {}, still);
  }

  private cleanupOf(job: JobRecord, opts: CleanupOptions): Promise<CleanupReport>;
  private cleanupOf(job: JobRecord, opts: CleanupOptions, still: () => Promise<boolean>): Promise<CleanupReport | undefined>;
  private async cleanupOf(job: JobRecord, opts: CleanupOptions, still?: () => Promise<boolean>): Promise<CleanupReport | undefined> {
    const { runner, cleanupLimiter } = this.ctx;
    const id = job.id;
    const { regenerable, archiveLimitMB } = this.ctx.settings();
    // Consent answers the question the last attempt asked: what it named as over the limit is what
    // may be dropped, so its limits hold unless this request names others (the setting's default
    // could be lower and drop files the person was never told about).
    const asked = opts.dropUnarchivable && job.cleanup?.awaitingConsent ? job.cleanup : undefined;
    const request = {
      manual: true,
      deleteBranch: opts.deleteBranch,
      dropUnarchivable: opts.dropUnarchivable,
      regenerable: opts.regenerable ?? asked?.regenerable ?? regenerable,
      archiveLimitBytes:
        opts.archiveLimitMB !== undefined ? Math.round(opts.archiveLimitMB * 1024 * 1024) : (asked?.archiveLimitBytes ?? Math.round(archiveLimitMB * 1024 * 1024)),
      abort: opts.abort,
    };
    // `still` is asked under the job's lock: no retry can come between its answer and the cleanup.
    const outcome = await cleanupLimiter.run(() => withJobLock(this.ctx, id, 'cleanup', async () => (still && !(await still()) ? undefined : runner.run(id, request))));
    if (!outcome) return undefined;
    forgetEnvIfCleaned(this.ctx, outcome.job);
    this.ctx.changed(id);
    await this.launcher.pumpForOperation();
    return outcome;
  }

  /** "Retry Cleanup Now": runs at once and resets the backoff. */
  async retryCleanup(id: string): Promise<CleanupReport> {
    const blocker = retryCleanupBlocker(await this.ctx.store.read(id));
    if (blocker) throw usageError(blocker);
    return this.cleanup(id);
  }

  /** Cleans up every ended agent not cleaned up yet, one by one, with the same guarantees. */
  async cleanUpFinished(opts: CleanupOptions = {}): Promise<CleanupReport[]> {
    const jobs = okJobs(await this.ctx.store.list()).filter((j) => isTerminalState(j.lifecycle.state) && j.cleanup?.phase !== 'complete');
    const reports: CleanupReport[] = [];
    for (const job of jobs) {
      try {
        reports.push(await this.cleanup(job.id, opts));
      } catch (err) {
        this.ctx.log(`cleanup of ${job.id} failed: ${describeError(err)}`);
      }
    }
    return reports;
  }

  /** Re-creates a cleaned agent's worktree from its evidence (at its old path, or `to`). */
  async restore(id: string, to?: string): Promise<RestoreResult> {
    await this.ctx.store.read(id);
    return withJobLock(this.ctx, id, 'restore', () => restoreAgent(this.ctx.store, id, to, this.ctx.settings().worktree, (m) => this.ctx.log(`restore of ${id}: ${m}`)));
  }

  // ------------------------------------------------------------ landing (issue 12)

  /** Lands the agent's branch on its base or `into` (merge, squash, rebase, fast-forward only). */
  merge(id: string, req: MergeRequest = {}): Promise<MergeReport> {
    return this.landing(id, 'merge', () => mergeLocked(this.ctx, id, req));
  }

  /** Brings the base into the agent's branch inside its worktree (a conflict stays there to resolve). */
  update(id: string, req: UpdateRequest = {}): Promise<UpdateReport> {
    return this.landing(id, 'update', () => updateLocked(this.ctx, id, req));
  }

  /** The agent's whole diff as uncommitted changes in the main worktree. */
  apply(id: string, choices: Pick<LandingChoices, 'running'> = {}): Promise<ApplyReport> {
    return this.landing(id, 'apply', () => applyLocked(this.ctx, id, choices));
  }

  /** Pushes the branch and opens a pull request (or gives the compare page). */
  pullRequest(id: string, req: PullRequestRequest = {}): Promise<PullRequestReport> {
    return this.landing(id, 'open a pull request for', () => pullRequestLocked(this.ctx, id, req));
  }

  /** Remove from List: forgets a cleaned agent, or the folder of a create that died before its record. */
  async forget(id: string, req: ForgetRequest = {}): Promise<ForgetReport> {
    const report = await forgetAgent(this.ctx, id, req);
    this.ctx.changed(id);
    return report;
  }

  /** What of the agent's work is in its archive (forgetting keeps it in kept/<id>), for a confirmation to name; null when nothing. */
  async archivedWork(id: string): Promise<ArchivedWork | null> {
    return archivedWork(this.ctx.store, await this.ctx.store.read(id));
  }

  planPrune(req: PruneRequest = {}): Promise<PrunePlan> {
    return planPrune(this.ctx, req);
  }

  async prune(plan: PrunePlan, req: PruneRequest = {}): Promise<PruneReport> {
    const report = await prune(this.ctx, plan, req);
    for (const id of report.forgotten) this.ctx.changed(id);
    return report;
  }

  /** Every landing: leftover temporary worktrees of dead processes go first, then the work under the job's lock. */
  private async landing<T>(id: string, what: string, fn: () => Promise<T>): Promise<T> {
    // With the agent's repository: its registrations of leftovers whose folders are gone go too.
    const repo = await this.ctx.store.read(id).then((j) => j.repo, () => undefined);
    await sweepLandingWorktrees(landingScratch(this.ctx), (m) => this.ctx.log(m), repo);
    try {
      return await withJobLock(this.ctx, id, what, fn);
    } finally {
      this.ctx.changed(id);
    }
  }

  /**
   * Types `text` and Enter into a running or waiting agent's terminal (sendToAgent: the rule and the
   * input limit). Not under the job lock: keystrokes write nothing to the store, and a person's
   * answer must not wait behind a cleanup's lock.
   */
  send(id: string, text: string): Promise<void> {
    return sendToAgent(this.ctx.store, id, text);
  }

  /** The review's unsent comments as one prompt: typed into a running agent, or a retry's prompt for an ended one. */
  sendReview(id: string): Promise<ReviewSent> {
    return sendReview({ store: this.ctx.store, send: (i, t) => this.send(i, t), retry: (i, o) => this.retry(i, o), lock: (i) => heldReviewSendLock(this.ctx.store, i) }, id);
  }
}

/** A cleaned-up agent is never launched again: its saved environment goes. */
export function forgetEnvIfCleaned(ctx: OperationContext, job: JobRecord): void {
  if (job.cleanup?.phase !== 'complete') return;
  try {
    removeRequestEnv(ctx.store.jobDir(job.id));
  } catch (err) {
    ctx.log(`could not remove the saved environment of ${job.id}: ${describeError(err)}`);
  }
}
