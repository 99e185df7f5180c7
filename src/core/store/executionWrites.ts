/**
 * Who runs a job: a worker's claim of its execution (the long-held execution
 * lock and the owner record), and a forced stop's end of an execution whose
 * worker does not answer. See docs/store.md ("Ownership").
 */
import { randomBytes } from '../common/lazyCrypto';
import { failure } from '../common/errors';
import { livenessOf, ownIdentity, readProcStatAsync } from '../proc/identity';
import { FILE_MODE } from './durable';
import { ExecutionClaim, HeldExecution } from './executionClaim';
import { releaseExecutionLock, takeExecutionLock } from './executionLock';
import { applyTransition } from './lifecycle';
import { LockOptions } from './locks';
import { StoreLayout } from './paths';
import { Mutation, RecordWriter } from './recordWriter';
import { writeRegularFileSync } from './regularFile';
import { isTerminalState, JobRecord } from './schema';

export interface ClaimOptions {
  generation: number;
  socketPath: string;
  socketToken: string;
}

/** The worker a forced stop saw: its identity, and its owner token once it had claimed the job. */
export interface UnresponsiveWorker {
  generation: number;
  pid: number;
  startTime: number;
  ownerToken: string | null;
}

export interface ExecutionParts {
  layout: StoreLayout;
  writer: RecordWriter;
  lockOptions: LockOptions;
  log: (msg: string) => void;
}

/**
 * Called by the worker: takes the long-held execution lock and records itself
 * as the owner. A queued job moves to `starting`. Refused for a stale
 * generation, an ended job, or a job whose owner is alive.
 */
export async function claimExecution(parts: ExecutionParts, id: string, opts: ClaimOptions): Promise<ExecutionClaim> {
  const { layout, writer, lockOptions, log } = parts;
  const me = ownIdentity();
  if (!me) throw failure('Cannot read this process\'s own start time from the operating system.');
  const ownerToken = randomBytes(24).toString('hex');
  const claim = new HeldExecution({ ownerToken, generation: opts.generation });
  const lockPath = layout.executionLock(id);
  await writer
    .mutate(id, async (current) => {
      const { state, generation } = current.lifecycle;
      if (generation !== opts.generation) {
        throw failure(`Agent ${id} is at generation ${generation}, not ${opts.generation}; this worker is stale.`, 'FENCED');
      }
      if (state !== 'queued' && state !== 'starting') {
        throw failure(`Agent ${id} is ${state}; only a queued or starting agent can be claimed.`, 'ILLEGAL_TRANSITION');
      }
      if (current.execution && livenessOf(current.execution) === 'alive') {
        throw failure(`Agent ${id} is already run by worker ${current.execution.pid}.`, 'ALREADY_OWNED');
      }
      const releaseLock = await takeExecutionLock(lockPath, claim, log);
      claim.attach(() =>
        releaseExecutionLock({ recordLock: layout.recordLock(id), ownerFile: layout.executionOwner(id), what: `agent ${id}` }, lockOptions, ownerToken, releaseLock),
      );
      writeRegularFileSync(layout.executionOwner(id), ownerToken, FILE_MODE);
      let next: JobRecord = {
        ...current,
        launch: null,
        execution: {
          ownerToken,
          generation,
          pid: me.pid,
          startTime: me.startTime,
          bootId: me.bootId,
          socketPath: opts.socketPath,
          socketToken: opts.socketToken,
          claimedAt: new Date().toISOString(),
        },
        lifecycle: { ...current.lifecycle, workerPid: me.pid },
      };
      const timeline: Mutation['timeline'] = [{ type: 'claimed', message: `worker ${me.pid}` }];
      if (state === 'queued') {
        next = applyTransition(next, 'starting');
        timeline.push({ type: 'transition', from: 'queued', to: 'starting' });
      }
      return { next, timeline };
    })
    .catch(async (err) => {
      await claim.release();
      throw err;
    });
  return claim;
}

/**
 * Ends an execution whose worker does not answer (`stop --force` of a frozen or hung worker) on
 * behalf of that worker. `endWorker` kills it while this job's record lock is held, so no reader
 * can judge the job `orphaned` in between; the write is fenced by the worker the caller saw (its
 * owner token, or its launch identity before it claimed, and the generation) and refused while
 * that worker still runs. The job goes through `cancelling` to `cancelled`.
 */
export function endForUnresponsiveWorker(
  writer: RecordWriter,
  id: string,
  expected: UnresponsiveWorker,
  endWorker: () => Promise<void>,
  detail: string,
): Promise<JobRecord> {
  return writer.mutate(id, async (current) => {
    const { state, generation } = current.lifecycle;
    const owner = current.execution;
    const sameWorker = owner
      ? owner.ownerToken === expected.ownerToken && owner.pid === expected.pid && owner.startTime === expected.startTime
      : expected.ownerToken === null && current.launch?.workerPid === expected.pid && current.launch.startTime === expected.startTime;
    if (generation !== expected.generation || isTerminalState(state) || !sameWorker) {
      throw failure(`Agent ${id} changed while it was being stopped (now generation ${generation}, ${state}); nothing was recorded.`, 'FENCED');
    }
    await endWorker();
    const worker = { pid: expected.pid, startTime: expected.startTime, bootId: owner?.bootId ?? current.launch!.bootId };
    const now = await readProcStatAsync(worker.pid); // a window runs this: on the portable backend a blocking look is a `ps` run
    if (livenessOf(worker, () => now) === 'alive') {
      throw failure(`The worker ${expected.pid} of agent ${id} is still running; nothing was recorded.`, 'STILL_RUNNING');
    }
    const timeline: Mutation['timeline'] = [{ type: 'stop-direct', message: detail }];
    let next = current;
    if (state !== 'cancelling') {
      next = applyTransition(next, 'cancelling', { detail });
      timeline.push({ type: 'transition', from: state, to: 'cancelling', message: detail });
    }
    next = applyTransition(next, 'cancelled', { detail });
    timeline.push({ type: 'transition', from: 'cancelling', to: 'cancelled', message: detail });
    return { next, timeline };
  });
}
