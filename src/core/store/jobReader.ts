/**
 * Reading jobs: one, or every one (unreadable ones included, with the reason).
 * Every reader reconciles a job whose owner is gone before returning it, so a
 * dead worker shows at the very next read. See docs/store.md.
 */
import { describeError, failure } from '../common/errors';
import { mapConcurrently } from '../common/limiter';
import { bootId, processTableSource } from '../proc/identity';
import { findByEnvMarkerAsync } from '../proc/scan';
import { AGENT_MARKER_ENV } from '../worker/agentMarker';
import { applyTransition } from './lifecycle';
import { checkOfGoneRunner, checkRunnerGone, endGoneRunnersCheck } from './checkRunner';
import { leftoversEnderGone, leftoversStillRunning, withEnderGone } from './leftoverCheck';
import { judgeOwnershipNow, type Reconciliation } from './ownership';
import { STOP_REQUEST_DETAIL, stopRequested } from './stopRequest';
import { assertJobId, StoreLayout } from './paths';
import type { Loaded } from './records';
import { interruptedCreateEntry, missingRecord, recordlessReason } from './interruptedCreate';
import { listedJobIds, READ_CONCURRENCY, readEntriesFrom, reconcileCheck } from './readEntries';
import { RecordWriter } from './recordWriter';
import type { JobRecord, Leftover } from './schema';
import { unreadableEntry, unreadableReason } from './unreadableEntry';

/** Between TERM and KILL for what a gone runner's check left running: a reader (a listing, the tree) waits for it, once. */
const GONE_CHECK_GRACE_MS = 2000;

/** The record's limit on listed leftovers (recordSchemas). */
const MAX_LISTED_SURVIVORS = 50;

export type JobEntry =
  | { id: string; ok: true; job: JobRecord }
  /** `interruptedCreate`: a folder whose create died before its record (see interruptedCreate.ts). */
  | {
      id: string;
      ok: false;
      reason: string;
      interruptedCreate?: true;
      /** The record cannot be read but a worker still holds its execution (see unreadableEntry.ts): it holds a slot. */
      workerRunning?: true;
    };

export class JobReader {
  constructor(
    private readonly layout: StoreLayout,
    private readonly writer: RecordWriter,
    private readonly log: (msg: string) => void,
    /** Whether `list` may block the event loop (a CLI process: faster); see JobStoreOptions.blockingReads. */
    private readonly blockingReads: boolean,
  ) {}

  async read(id: string): Promise<JobRecord> {
    assertJobId(id);
    return this.reconciled(this.storedJob(id, this.writer.load(id)));
  }

  /** The record as stored: no reconciling, nothing written; read without blocking the event loop. */
  async stored(id: string): Promise<JobRecord> {
    assertJobId(id);
    return this.storedJob(id, await this.writer.loadAsync(id));
  }

  private storedJob(id: string, loaded: Loaded): JobRecord {
    if (loaded.kind === 'missing') throw missingRecord(this.layout, id);
    if (loaded.kind === 'unreadable') throw failure(`Agent ${id} is unreadable: ${unreadableReason(this.layout, id, loaded.reason)}.`, 'UNREADABLE');
    return loaded.job;
  }

  async tryRead(id: string): Promise<JobEntry> {
    assertJobId(id);
    const loaded = this.writer.load(id);
    if (loaded.kind === 'missing') {
      const recordless = recordlessReason(this.layout, id);
      return recordless ? { id, ok: false, reason: recordless, interruptedCreate: true } : { id, ok: false, reason: 'no such agent' };
    }
    if (loaded.kind === 'unreadable') return unreadableEntry(this.layout, id, loaded.reason);
    return { id, ok: true, job: await this.reconciled(loaded.job) };
  }

  /**
   * Every job, unreadable ones included (ok: false with the reason), oldest first; dead owners reconciled.
   * Read asynchronously (the caller's event loop stays free), or, with `blockingReads`, synchronously.
   */
  async list(): Promise<JobEntry[]> {
    const entries = this.blockingReads
      ? await this.listBlocking()
      : await readEntriesFrom(this.layout, async (id, job): Promise<JobEntry> => ({ id, ok: true, job: await this.reconciled(job) }));
    // Oldest first; unreadable ones (no creation time to trust) last. Plain code-unit order: ISO times
    // and ids are ASCII, and localeCompare (ICU) was a tenth of listing 1,000 jobs.
    const key = (e: JobEntry) => (e.ok ? e.job.createdAt : '~');
    return entries.sort((a, b) => compareText(key(a), key(b)) || compareText(a.id, b.id));
  }

  /**
   * Most records need nothing more than reading: they are taken here with a synchronous read each and
   * no promise (listing 1,000 agents); the rest (a dead owner, leftovers gone, no record) take the slow way.
   */
  private async listBlocking(): Promise<JobEntry[]> {
    const ready: JobEntry[] = [];
    const others: { id: string; loaded: Loaded }[] = [];
    const check = reconcileCheck();
    for (const id of await listedJobIds(this.layout)) {
      const loaded = this.writer.load(id);
      const needs = loaded.kind === 'ok' ? check(loaded.job) : true;
      if (loaded.kind === 'ok' && !(typeof needs === 'boolean' ? needs : await needs)) ready.push({ id, ok: true, job: loaded.job });
      else others.push({ id, loaded });
    }
    const rest = await mapConcurrently(others, READ_CONCURRENCY, ({ id, loaded }) => this.listEntry(id, loaded));
    return [...ready, ...rest.filter((e): e is JobEntry => e !== undefined)];
  }

  /** `loaded`: the record as `list` read it (not read again). */
  private async listEntry(id: string, loaded: Loaded): Promise<JobEntry | undefined> {
    if (loaded.kind === 'ok') return { id, ok: true, job: await this.reconciled(loaded.job) };
    if (loaded.kind === 'unreadable') return unreadableEntry(this.layout, id, loaded.reason);
    return interruptedCreateEntry(this.layout, id);
  }

  /** A reader that finds the owner gone fixes the record at once (under the lock, re-checked there: exactly once). */
  private async reconciled(job: JobRecord): Promise<JobRecord> {
    const owned = await this.reconciledOwner(job);
    return this.withoutGoneCheckRunner(await this.withoutGoneLeftovers(await this.withoutGoneEnder(owned)));
  }

  /**
   * A person's check whose runner died is recorded failed (see checkRunner.ts): never "check running"
   * for good. What the check left running is ended first, so the record never says it was when it
   * was not; two readers at once may both end it (the second finds nothing), one records it.
   */
  private async withoutGoneCheckRunner(job: JobRecord): Promise<JobRecord> {
    if (!job.check?.runner || !checkRunnerGone(job, await processTableSource())) return job;
    try {
      const left = await endGoneRunnersCheck(job, Math.min(job.settings.stopGraceMs, GONE_CHECK_GRACE_MS));
      return await this.writer.mutate(job.id, async (current) => {
        if (!current.check || !checkRunnerGone(current, await processTableSource())) return undefined;
        const check = checkOfGoneRunner(current.check, left);
        return { next: { ...current, check }, timeline: [{ type: 'check-failed', message: check.summary }] };
      });
    } catch (err) {
      this.log(`could not record the gone check runner of agent ${job.id}: ${describeError(err)}`);
      return job;
    }
  }

  /** A worker killed while it ended what its agent left running: the record says they run on (the lead coordinator ends them). */
  private async withoutGoneEnder(job: JobRecord): Promise<JobRecord> {
    if (!leftoversEnderGone(job, await processTableSource())) return job;
    try {
      return await this.writer.mutate(job.id, async (current) => {
        if (!leftoversEnderGone(current, await processTableSource())) return undefined;
        const message = `its worker ${current.leftoversEnder?.pid} died while ending what the agent left running`;
        return { next: withEnderGone(current), timeline: [{ type: 'leftovers-ender-gone', message }] };
      });
    } catch (err) {
      this.log(`could not record the gone worker of agent ${job.id}: ${describeError(err)}`);
      return job;
    }
  }

  /** Leftovers that exited (or whose pid now names another process) leave the record at the next read. */
  private async withoutGoneLeftovers(job: JobRecord): Promise<JobRecord> {
    // Judged from the process table (one asynchronous `ps` on the portable backend, not a blocking one
    // per process), exact for processes the record named before it was taken.
    // A gone ender whose listed leftovers all exited is left for the lead pass: a process they forked
    // carrying the marker may run on, and only a marker scan (not a reader's cheap look) tells.
    if (!job.leftovers?.length || leftoversStillRunning(job, await processTableSource()) === undefined) return job;
    try {
      return await this.writer.mutate(job.id, async (current) => {
        const running = leftoversStillRunning(current, await processTableSource());
        if (running === undefined) return undefined;
        const gone = (current.leftovers ?? []).filter((p) => !running.some((r) => r.pid === p.pid));
        const message = `${gone.length === 1 ? 'a process' : `${gone.length} processes`} it left running exited: ${gone.map((p) => `${p.pid} (${p.command.split(' ')[0]})`).join(', ')}`;
        const next = { ...current, leftovers: running };
        return { next, timeline: [{ type: 'leftovers-exited', message: message.slice(0, 2000) }] };
      });
    } catch (err) {
      this.log(`could not update the leftovers of agent ${job.id}: ${describeError(err)}`);
      return job;
    }
  }

  private async reconciledOwner(job: JobRecord): Promise<JobRecord> {
    if (!(await judgeOwnershipNow(job))) return job;
    try {
      return await this.writer.mutate(job.id, async (current) => {
        const verdict = await honouringStop(current, await judgeOwnershipNow(current));
        if (!verdict) return undefined;
        const transitioned = transitionTo(current, verdict);
        // The worker died, its agent may not have: what still runs is listed, so the row says so and offers Stop.
        const survivors = verdict.to === 'orphaned' ? await survivorsOf(current.id) : [];
        const next = survivors.length ? { ...transitioned, leftovers: survivors } : transitioned;
        return { next, timeline: [{ type: verdict.type, from: current.lifecycle.state, to: verdict.to, message: verdict.detail }] };
      });
    } catch (err) {
      this.log(`could not reconcile agent ${job.id}: ${describeError(err)}`);
      // Not recorded (a full disk, a read-only store), yet true: the read says what it judged. Returned as it
      // was, a stop waiting for the end its worker could not record waited out its 30 s and failed.
      const verdict = await honouringStop(job, await judgeOwnershipNow(job).catch(() => undefined));
      return verdict ? transitionTo(job, verdict) : job;
    }
  }
}

/** `verdict` applied; a stop's `cancelled` passes through `cancelling`, as a worker's own stop does. */
function transitionTo(job: JobRecord, verdict: Reconciliation): JobRecord {
  const via = verdict.to === 'cancelled' && job.lifecycle.state !== 'cancelling' ? applyTransition(job, 'cancelling', { detail: verdict.detail }) : job;
  return applyTransition(via, verdict.to, { detail: verdict.detail });
}

/** A worker gone after a stop it could not record (bug 141): the agent was stopped, not crashed. */
async function honouringStop(job: JobRecord, verdict: Reconciliation | undefined): Promise<Reconciliation | undefined> {
  if (verdict?.to !== 'orphaned' || !(await stopRequested(job))) return verdict;
  return { ...verdict, to: 'cancelled', detail: `${STOP_REQUEST_DETAIL} (${verdict.detail})` };
}

/** The processes that still carry an orphaned agent's marker, as leftovers (with their identity, as the worker lists them). */
async function survivorsOf(id: string): Promise<Leftover[]> {
  const found = await findByEnvMarkerAsync(AGENT_MARKER_ENV, id);
  const boot = bootId();
  return found
    .sort((a, b) => a.pid - b.pid)
    .slice(0, MAX_LISTED_SURVIVORS)
    .map((p) => ({ pid: p.pid, command: p.comm.slice(0, 500), startTime: p.startTime, bootId: boot }));
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
