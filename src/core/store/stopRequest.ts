/**
 * A stop asked for while nothing could be written in the store (a full disk, a read-only store: bug 141).
 * Its worker could not record `cancelled`, so the next reader found it gone and judged `orphaned` (a
 * crash) — and an automatic restart ran the stopped agent again. The request is kept beside the
 * execution's socket, in the runtime directory (not on the store's disk), named after that socket; a
 * reader that finds its worker gone records `cancelled` instead.
 *
 * The request is trusted only as far as it is proven: a regular file that parses (zod) and names this
 * agent, this generation and this worker (pid and start time: a later run on the same socket path, after
 * a reboot with a persistent runtime directory, is another worker), in a runtime directory only this
 * user can write in (socketDirProblem: another user could plant one there). Anything else is no request:
 * a crash stays a crash. It goes once the record says the agent ended, or when the stop failed.
 *
 * Every look and write here is asynchronous: every write that records an execution's end asks for the
 * request, a read that finds a worker gone too, and both run on a window's event loop.
 */
import { rm } from 'node:fs';
import { dirname } from 'node:path';
import * as z from '../common/zod';
import { socketDirProblemAsync } from '../protocol/runtimeDir';
import { isNotRegularFile, readRegularText, writeRegularFile } from './regularFile';
import type { JobRecord } from './schema';

/** Said in the record of an agent whose stop is recorded from its request. */
export const STOP_REQUEST_DETAIL = 'stopped by paddock stop while the store could not be written';

/** Small: a few fields; anything larger is not a request this code wrote. */
const MAX_BYTES = 4096;

let schema: z.ZodMiniType<StopRequest> | undefined;
interface StopRequest {
  id: string;
  generation: number;
  workerPid: number;
  workerStartTime: number;
  at: string;
}
function requestSchema(): z.ZodMiniType<StopRequest> {
  schema ??= z.object({
    id: z.string().check(z.maxLength(64)),
    generation: z.number().check(z.int(), z.nonnegative()),
    workerPid: z.number().check(z.int(), z.positive()),
    workerStartTime: z.number().check(z.int(), z.nonnegative()),
    at: z.string().check(z.maxLength(64)),
  });
  return schema;
}

function requestFile(job: JobRecord): string | undefined {
  return job.execution ? `${job.execution.socketPath}.stop` : undefined;
}

/** The request `job`'s current execution would carry: its id, generation and worker. */
function expected(job: JobRecord): Omit<StopRequest, 'at'> | undefined {
  const exec = job.execution;
  return exec ? { id: job.id, generation: job.lifecycle.generation, workerPid: exec.pid, workerStartTime: exec.startTime } : undefined;
}

/** What a request at `job`'s socket says, when it is one this code could honour; undefined for anything else. */
async function readRequest(job: JobRecord): Promise<StopRequest | undefined> {
  const file = requestFile(job);
  if (file === undefined || (await socketDirProblemAsync(dirname(file))) !== null) return undefined;
  try {
    const text = await readRegularText(file, MAX_BYTES);
    const parsed = text === null ? undefined : requestSchema().safeParse(JSON.parse(text));
    return parsed?.success ? parsed.data : undefined;
  } catch {
    // Missing, a folder, a FIFO, not JSON: no request.
    return undefined;
  }
}

/** Whether a stop of `job`'s current execution, by its worker, was asked for and could not be recorded then. */
export async function stopRequested(job: JobRecord): Promise<boolean> {
  const want = expected(job);
  if (want === undefined) return false;
  const got = await readRequest(job);
  return got !== undefined && got.id === want.id && got.generation === want.generation && got.workerPid === want.workerPid && got.workerStartTime === want.workerStartTime;
}

/**
 * Keeps the stop of `job`'s current execution (`job` as stored: a reader's unrecorded verdict has no
 * execution any more). 'already': one was kept before; 'kept'; or false when it could not be kept (no
 * execution, a runtime directory that is not this user's alone, or one nothing can be written in).
 */
export async function keepStopRequest(job: JobRecord): Promise<'kept' | 'already' | false> {
  const file = requestFile(job);
  const want = expected(job);
  if (file === undefined || want === undefined || (await socketDirProblemAsync(dirname(file))) !== null) return false;
  if (await stopRequested(job)) return 'already';
  try {
    // Not a regular file there (a folder, a FIFO): refused, left as it is, and the stop is said unkept.
    await writeRegularFile(file, `${JSON.stringify({ ...want, at: new Date().toISOString() })}\n`, 0o600);
    return 'kept';
  } catch (err) {
    // Ours, written in part or whole but not said kept (its close failed, bug 167): gone, so that a stop that then
    // fails leaves no request to turn a later crash into a stop (what is said unkept is never dropped).
    if (!isNotRegularFile(err) && (err as NodeJS.ErrnoException).code !== 'EISDIR') await removeQuietly(file);
    return false;
  }
}

function removeQuietly(file: string): Promise<void> {
  return new Promise<void>((resolve) => rm(file, { force: true }, () => resolve()));
}

/** The request is done with: the record says the agent ended, or the stop failed (best effort: it names one execution only). */
export async function dropStopRequest(job: JobRecord): Promise<void> {
  const file = requestFile(job);
  if (file === undefined || !(await stopRequested(job))) return;
  // A failure leaves it: it names a finished execution's worker only, which no later run has.
  await removeQuietly(file);
}
