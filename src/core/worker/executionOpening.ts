/**
 * The worker's first steps, before it serves or runs anything: the job read
 * and held to the generation it was launched for, the redactor of its secret
 * values, the execution claimed (with the socket path the worker will serve)
 * and the record's one fenced writer. Kept out of AgentWorker, which serves
 * and runs what this opens.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { IDisposable } from '../common/lifecycle';
import { failure } from '../common/errors';
import { type ExecutionClaim, type JobRecord, JobStore, type Redactor } from '../store';
import { redactorForCommandEnv } from '../store/secretEnv';
import { runtimeDirFor, socketFileName } from '../protocol/runtimeDir';
import { ExecutionRecord } from './executionRecord';

export interface ExecutionToOpen {
  home: string;
  jobId: string;
  generation: number;
  env: NodeJS.ProcessEnv;
  log: (message: string) => void;
}

export interface OpenedExecution {
  /** The store, writing through the redactor. */
  store: JobStore;
  /** Removes the values of the job's secret variables (and token shapes) from what the worker persists. */
  redactor: Redactor;
  claim: ExecutionClaim;
  /** The record as it was once claimed. */
  job: JobRecord;
  record: ExecutionRecord;
  /** Where the control socket is to be served (recorded with the claim, checked only after it). */
  socketPath: string;
  /** The tokens of the control socket: the controller's, and the agent's own (`paddock signal`). */
  controlToken: string;
  agentToken: string;
}

/**
 * Claims the job's execution. What it makes to be disposed with the worker goes to `register` at
 * once (the claim before the first read that may fail after it, so its lock is never left held).
 */
export async function openExecution(request: ExecutionToOpen, register: <T extends IDisposable>(item: T) => T): Promise<OpenedExecution> {
  const { home, jobId, generation, env, log } = request;
  const first = await new JobStore({ home, log }).read(jobId);
  if (first.lifecycle.generation !== generation) {
    throw failure(`Agent ${jobId} is at generation ${first.lifecycle.generation}, not ${generation}.`);
  }
  // Values of secret variables are known only here (the spawner passed them in our environment).
  // Declared secrets and every credential-shaped name of the environment the agent really gets.
  const redactor = redactorForCommandEnv(env, first.settings.secretEnvNames);
  const store = new JobStore({ home, log, redactor });

  // The path is recorded with the claim and checked after it, so a bad runtime dir ends the job with a clear reason.
  const socketPath = join(runtimeDirFor(env), socketFileName(jobId, generation));
  const controlToken = randomBytes(24).toString('hex');
  const agentToken = randomBytes(24).toString('hex');

  const claim = register(await store.claimExecution(jobId, { generation, socketPath, socketToken: controlToken }));
  register(claim.onDidCompromise((err) => log(`execution lock compromised: ${err.message}; record writes will be refused`)));
  const job = await store.read(jobId);
  const record = register(new ExecutionRecord(store, jobId, claim.fence, job.lifecycle.state, log));
  return { store, redactor, claim, job, record, socketPath, controlToken, agentToken };
}
