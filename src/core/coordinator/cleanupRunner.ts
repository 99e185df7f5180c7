/**
 * One cleanup attempt for one agent, through the persisted phases
 * requested → terminating → capturing → removing → complete | incomplete.
 *
 * The promise is that cleanup never loses work: the agent is proven stopped,
 * then the worktree's full state is committed to a snapshot ref and written as
 * a patch, and only then is anything removed — never under a live holder, and
 * never a branch with commits found nowhere else unless the person asked.
 * Every phase is written to the record before it runs, so an attempt cut short
 * (crash, reload) resumes from what is on disk. The caller holds the job's
 * operation lock.
 */
import { cancelQueued } from '../operations/cancelQueued';
import { assertRegisteredBranch } from '../operations/claimGuard';
import { existsSync } from 'node:fs';
import { describeError } from '../common/errors';
import { findByEnvMarkerAsync, terminateProcessTree } from '../proc';
import { removeJobSockets } from '../protocol/runtimeDir';
import { removeDeadAsides } from '../protocol/asideSockets';
import type { Cleanup, CleanupResource, JobRecord } from '../store/schema';
import { isTerminalState } from '../store/schema';
import type { JobStore } from '../store';
import { backoffDelayMs, NEEDS_ATTENTION_AFTER } from './backoff';
import { ChangedAfterCapture, removeJobBranch, removeJobWorktree, Stage, StageFailure } from './cleanupRemoval';
import { bringBackAside } from './worktreeAside';
import { captureStage } from './cleanupCapture';
import type { CaptureStamp } from '../git/changedSince';
import { observeFingerprint } from './fingerprint';

export { observeFingerprint };
import { AGENT_MARKER_ENV } from '../worker/agentMarker';
import { agentCommandEnv } from '../worker/agentEnv';
import { openRequestEnv } from './requestEnv';
import { runtimeDirFor } from '../protocol/runtimeDir';
import { runLoggedTeardown, teardownFailure } from './teardown';
import type { Closing } from '../common/closing';

export interface CleanupRunnerDeps {
  store: JobStore;
  /** Stops a live agent and resolves when its record is terminal; returns why not when it could not. */
  stopAgent(id: string, graceMs: number): Promise<void>;
  log(message: string): void;
  random?: () => number;
  /** The environment that names the runtime dir (PADDOCK_RUNTIME_DIR, XDG_RUNTIME_DIR); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** This process is closing: a teardown running here is ended like an interrupted one, and waited for. */
  closing: Closing;
}

export interface CleanupRequest {
  deleteBranch?: boolean;
  /** A person asked (now): backoff and failure count start over. */
  manual: boolean;
  /**
   * The person said to clean up anyway ("Clean Up Anyway", `--anyway`): what cannot be archived is
   * dropped, and a teardown command that fails is skipped (recorded) instead of stopping the cleanup.
   */
  dropUnarchivable?: boolean;
  /** Ignored paths that may be dropped (globs); kept on the record for automatic retries. */
  regenerable?: readonly string[];
  /** Bytes the archive may hold without consent; kept on the record for automatic retries. */
  archiveLimitBytes?: number;
  /**
   * The command that runs this cleanup was interrupted (a Ctrl-C): a teardown command running, or
   * not yet begun, is ended with everything it started and fails its stage, so nothing of it
   * outlives the command; the other steps are Paddock's own and finish (an interrupted cleanup is
   * resumed as ever).
   */
  abort?: AbortSignal;
}

export interface CleanupOutcome {
  job: JobRecord;
  /** What happened, in sentences for the person ("worktree was already gone; pruned"). */
  notes: string[];
  /** True when the attempt did nothing because the cleanup was already complete. */
  alreadyComplete: boolean;
}

function initialRemaining(job: JobRecord): CleanupResource[] {
  const remaining: CleanupResource[] = [];
  // Leftover processes of an ended agent are looked for (and stopped) in the terminating stage.
  if (!isTerminalState(job.lifecycle.state)) remaining.push('process');
  if (job.worktree) remaining.push('worktree');
  if (job.branch) remaining.push('branch');
  return remaining;
}

/** Facts one attempt's capture found that its removal can use. */
interface AttemptFacts {
  /** What this attempt's capture saw; undefined when it did not capture. */
  stamp?: CaptureStamp;
}

/**
 * Captures one attempt makes when the worktree keeps changing after each: a writer that finished
 * is caught up with, one that goes on leaves the worktree in place for a later attempt.
 */
const CAPTURES_PER_ATTEMPT = 3;

export class CleanupRunner {
  constructor(private readonly deps: CleanupRunnerDeps) {}

  run(id: string, request: CleanupRequest): Promise<CleanupOutcome> {
    return this.deps.closing.run(request.abort, (abort) => this.attempt(id, { ...request, abort }));
  }

  private async attempt(id: string, request: CleanupRequest): Promise<CleanupOutcome> {
    const { store } = this.deps;
    let job = await store.read(id);
    if (job.cleanup?.phase === 'complete') return { job, notes: [], alreadyComplete: true };
    const now = new Date().toISOString();
    job = await store.update(id, (j) => {
      const prev = j.cleanup;
      // Whatever an earlier attempt recorded carries over (what it did, like a teardown done, must not
      // be done again); only what a new request decides is set here.
      const cleanup: Cleanup = {
        ...prev,
        phase: 'requested',
        remaining: prev ? prev.remaining : initialRemaining(j),
        stage: prev?.stage ?? null,
        failures: request.manual ? 0 : (prev?.failures ?? 0),
        nextAttemptAt: null,
        lastError: prev?.lastError ?? null,
        needsAttention: request.manual ? false : (prev?.needsAttention ?? false),
        holders: prev?.holders ?? [],
        deleteBranch: (prev?.deleteBranch ?? false) || request.deleteBranch === true,
        fingerprint: prev?.fingerprint ?? null,
        branchOutcome: prev?.branchOutcome ?? null,
        requestedAt: prev?.requestedAt ?? now,
        updatedAt: now,
        regenerable: request.regenerable ? [...request.regenerable] : prev?.regenerable,
        archiveLimitBytes: request.archiveLimitBytes ?? prev?.archiveLimitBytes,
        dropUnarchivable: (request.manual ? false : (prev?.dropUnarchivable ?? false)) || request.dropUnarchivable === true,
        awaitingConsent: request.manual ? false : (prev?.awaitingConsent ?? false),
        awaitingRetry: request.manual ? false : (prev?.awaitingRetry ?? false),
      };
      return { ...j, cleanup };
    });
    await this.timeline(job, 'cleanup-requested', request.manual ? 'cleanup requested' : 'automatic cleanup attempt');
    const notes: string[] = [];
    // What this attempt's capture learned of the worktree, so removal does not walk it a second time.
    const attempt: AttemptFacts = {};
    try {
      // A removal cut short (this process or another killed) may have left the worktree moved aside.
      if (job.worktree !== null) await bringBackAside(job.worktree);
      // Before anything is stopped, captured or removed: a worktree git has on another live agent's branch
      // is that agent's. Refused as a failed stage, so an automatic retry backs off like any other.
      if (job.worktree !== null) await assertRegisteredBranch(store, job, 'clean up', job.worktree);
      job = await this.terminate(job, notes, request.abort);
      job = await this.capture(job, notes, attempt);
      job = await this.removeUnchanged(job, notes, attempt);
      job = await this.setPhase(id, 'complete', (c) => ({
        ...c,
        remaining: [],
        stage: null,
        nextAttemptAt: null,
        lastError: null,
        needsAttention: false,
        holders: [],
        fingerprint: null,
        awaitingConsent: false,
        awaitingRetry: false,
      }));
    } catch (err) {
      const failed = err instanceof StageFailure ? err : new StageFailure(this.currentStage(job), describeError(err));
      try {
        job = await this.fail(id, failed);
      } catch (recordErr) {
        // The record could not be written: the attempt ends here, and its phase on disk says where
        // it stopped, so the next attempt resumes from there. Say so where a person can see it.
        await this.timeline(job, 'cleanup-interrupted', `cleanup interrupted at ${failed.stage}: ${failed.message}; ${describeError(recordErr)}`);
        throw recordErr;
      }
      return { job, notes, alreadyComplete: false };
    }
    await this.timeline(job, 'cleanup-complete', `cleanup complete: ${notes.join('; ')}`);
    this.deps.log(`cleanup of ${id} complete: ${notes.join('; ')}`);
    return { job, notes, alreadyComplete: false };
  }

  private currentStage(job: JobRecord): Stage {
    const phase = job.cleanup?.phase;
    return phase === 'capturing' || phase === 'removing' ? phase : 'terminating';
  }

  /** 1. The agent's processes — its session and anything carrying its marker — are proven gone. */
  private async terminate(job: JobRecord, notes: string[], abort?: AbortSignal): Promise<JobRecord> {
    const id = job.id;
    job = await this.setPhase(id, 'terminating');
    const graceMs = job.settings.stopGraceMs;
    if (job.lifecycle.state === 'queued') {
      job = await cancelQueued(this.deps.store, id, 'cancelled by cleanup before it started');
    } else if (!isTerminalState(job.lifecycle.state)) {
      try {
        await this.deps.stopAgent(id, graceMs);
      } catch (err) {
        throw new StageFailure('terminating', describeError(err));
      }
      job = await this.deps.store.read(id);
      if (!isTerminalState(job.lifecycle.state)) {
        throw new StageFailure('terminating', `the agent is still ${job.lifecycle.state} after being stopped`);
      }
      notes.push('agent stopped');
    } else if ((job.leftovers?.length ?? 0) > 0) {
      // Listed on the record as left running (by its worker while it ends them, or left to the person): one
      // that dropped the marker is not found by the scan below, and would write on into the worktree.
      try {
        await this.deps.stopAgent(id, graceMs);
      } catch (err) {
        throw new StageFailure('terminating', describeError(err));
      }
      job = await this.deps.store.read(id);
      const [left] = job.leftovers ?? [];
      if (left) throw new StageFailure('terminating', `process ${left.pid} (${left.command}) it left running is still running after SIGKILL`, [], true);
    }
    // Escapees (new sessions) and survivors of a dead worker still carry the job's marker.
    const marked = await findByEnvMarkerAsync(AGENT_MARKER_ENV, id);
    if (marked.length > 0) {
      const sids = [...new Set(marked.map((p) => p.sid))].filter((sid) => sid > 1);
      let survivors = marked;
      for (const sid of sids) {
        const result = await terminateProcessTree({ sid, marker: { name: AGENT_MARKER_ENV, value: id }, graceMs });
        survivors = result.survivors;
      }
      if (survivors.length > 0) {
        const first = survivors[0];
        throw new StageFailure('terminating', `process ${first.pid} (${first.comm}) is still running after SIGKILL`, [], true);
      }
      notes.push(`stopped ${marked.length} leftover process${marked.length === 1 ? '' : 'es'}`);
    }
    // Proven stopped: a killed worker's socket file is all that is left of it.
    await removeJobSockets(id, job.lifecycle.generation, this.deps.env);
    // And what any worker killed while making its socket left beside it (asideSockets.ts).
    await removeDeadAsides(runtimeDirFor(this.deps.env));
    job = await this.setPhase(id, 'terminating', (c) => ({ ...c, remaining: c.remaining.filter((r) => r !== 'process') }));
    return this.teardown(job, notes, abort);
  }

  /**
   * The worktree's teardown command, once (a success is recorded; a failure fails this stage and is
   * retried, unless the person said to clean up anyway: then it is skipped and that is recorded).
   */
  private async teardown(job: JobRecord, notes: string[], abort?: AbortSignal): Promise<JobRecord> {
    const command = job.settings.worktree?.teardown;
    if (!command || job.cleanup?.teardownDone || job.cleanup?.teardownSkipped || job.worktree === null || !existsSync(job.worktree)) return job;
    const id = job.id;
    const outcome = await runLoggedTeardown(this.deps.store, job, command, agentCommandEnv(this.teardownEnv(job), job), abort);
    if (outcome.survivors.length > 0) {
      throw new StageFailure('terminating', `the teardown left process ${outcome.survivors[0]} running even after SIGKILL`, [], true);
    }
    if (outcome.code !== 0 || outcome.timedOut) {
      const why = teardownFailure(outcome);
      // Interrupted: not the teardown's failure the person agreed to skip, but their asking to stop.
      if (!job.cleanup?.dropUnarchivable || outcome.aborted) throw new StageFailure('terminating', why);
      // The person's "anyway": the teardown is what stood in the way, the capture still runs in full.
      notes.push(`teardown skipped as agreed (${why.split(':')[0]})`);
      await this.timeline(job, 'teardown-skipped', `teardown skipped as agreed: ${why}`);
      return this.setPhase(id, 'terminating', (c) => ({ ...c, teardownSkipped: true }));
    }
    const left = outcome.leftoversEnded;
    notes.push(left > 0 ? `teardown done (ended ${left} process${left === 1 ? '' : 'es'} it left running)` : 'teardown done');
    await this.timeline(job, 'teardown', `teardown done: ${command}`);
    return this.setPhase(id, 'terminating', (c) => ({ ...c, teardownDone: true }));
  }

  /** The environment of the request that started the agent (its credentials), else this process's. */
  private teardownEnv(job: JobRecord): NodeJS.ProcessEnv {
    const env = this.deps.env ?? process.env;
    try {
      return openRequestEnv(this.deps.store.jobDir(job.id), job.id, runtimeDirFor(env));
    } catch {
      return env;
    }
  }

  /** 2. Evidence before destruction (cleanupCapture.ts); what it saw goes to the removal's check. */
  private async capture(job: JobRecord, notes: string[], attempt: AttemptFacts): Promise<JobRecord> {
    const captured = await captureStage(
      { store: this.deps.store, setPhase: (id, phase) => this.setPhase(id, phase), timeline: (j, type, message) => this.timeline(j, type, message), log: (m) => this.deps.log(m) },
      job,
      notes,
    );
    if (captured.stamp) attempt.stamp = captured.stamp;
    return captured.job;
  }

  /** 3–4, after a new capture each time the worktree changed since the last one. */
  private async removeUnchanged(job: JobRecord, notes: string[], attempt: AttemptFacts): Promise<JobRecord> {
    for (let captures = 1; ; captures++) {
      try {
        return await this.remove(job, notes, attempt);
      } catch (err) {
        if (!(err instanceof ChangedAfterCapture) || captures >= CAPTURES_PER_ATTEMPT) throw err;
        notes.push(`${err.changed} changed after the capture; captured again`);
        job = await this.capture(await this.deps.store.read(job.id), notes, attempt);
      }
    }
  }

  /** 3–4. Remove the worktree (never under a holder), then the branch if nothing would be lost. */
  private async remove(job: JobRecord, notes: string[], attempt: AttemptFacts): Promise<JobRecord> {
    const id = job.id;
    // Again just before anything goes: git's registration may have changed during the capture.
    if (job.worktree !== null) await assertRegisteredBranch(this.deps.store, job, 'clean up', job.worktree);
    job = await this.setPhase(id, 'removing');
    if (job.worktree !== null && job.cleanup!.remaining.includes('worktree')) {
      notes.push(await removeJobWorktree(job, job.worktree, attempt.stamp, { blocking: this.deps.store.blockingReads }));
      job = await this.setPhase(id, 'removing', (c) => ({ ...c, remaining: c.remaining.filter((r) => r !== 'worktree'), holders: [] }));
    }
    if (job.branch !== null && job.cleanup!.remaining.includes('branch')) {
      const outcome = await removeJobBranch(job, job.branch);
      notes.push(outcome);
      job = await this.setPhase(id, 'removing', (c) => ({ ...c, remaining: c.remaining.filter((r) => r !== 'branch'), branchOutcome: outcome }));
    }
    return job;
  }

  private async fail(id: string, err: StageFailure): Promise<JobRecord> {
    // Only a failure caused by something observed (a holder, a surviving process) can be judged
    // "unchanged"; any other (a git lock, a full disk) is simply retried on the backoff.
    const observable = err.holders.length > 0 || err.observed;
    const fingerprint = observable ? await observeFingerprint(await this.deps.store.read(id)) : null;
    const job = await this.deps.store.update(id, (j) => {
      const c = j.cleanup!;
      const failures = c.failures + 1;
      // A capture that fails the same way again and again (git refusing what the worktree holds) would
      // fail so forever: after NEEDS_ATTENTION_AFTER identical failures it waits for the person to fix
      // the cause and retry it. Not for consent: nothing would be lost, so Clean Up Anyway would not help.
      const stuck = !err.needsConsent && err.stage === 'capturing' && c.stage === 'capturing' && failures >= NEEDS_ATTENTION_AFTER && c.lastError === describeError(err.message, 2000);
      const waits = err.needsConsent || stuck;
      const lastError = stuck ? `${err.message}; it failed the same way ${failures} times, so it waits for you to retry it` : err.message;
      return {
        ...j,
        cleanup: {
          ...c,
          phase: 'incomplete',
          stage: err.stage,
          failures,
          // Waiting for the person is not retried on a timer: the same attempt would stop the same way.
          nextAttemptAt: waits ? null : new Date(Date.now() + backoffDelayMs(failures, this.deps.random)).toISOString(),
          lastError: describeError(lastError, 2000),
          needsAttention: waits || failures >= NEEDS_ATTENTION_AFTER,
          awaitingConsent: err.needsConsent,
          awaitingRetry: stuck,
          holders: err.holders.slice(0, 50),
          fingerprint,
          updatedAt: new Date().toISOString(),
        },
      };
    });
    await this.timeline(job, 'cleanup-incomplete', `cleanup incomplete at ${err.stage}: ${err.message}`);
    this.deps.log(`cleanup of ${id} incomplete at ${err.stage}: ${err.message}`);
    return job;
  }

  private async setPhase(id: string, phase: Cleanup['phase'], change: (c: Cleanup) => Cleanup = (c) => c): Promise<JobRecord> {
    return this.deps.store.update(id, (j) => ({
      ...j,
      cleanup: { ...change(j.cleanup!), phase, updatedAt: new Date().toISOString() },
    }));
  }

  private async timeline(job: JobRecord, type: string, message: string): Promise<void> {
    try {
      await this.deps.store.appendTimeline(job.id, { generation: job.lifecycle.generation, type, message });
    } catch (err) {
      this.deps.log(`could not append to the timeline of ${job.id}: ${describeError(err)}`);
    }
  }
}

