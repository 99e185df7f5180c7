/**
 * The documented JSON shape of an agent (`list --json`, `show --json`,
 * `start --json`): stable field names, absent parts as null. Scripts rely on it.
 */
import type { JobEntry, JobRecord } from '../../core/store';
import { suspensionWords, type Suspension } from '../../core/store/suspension';
import { currentUsage } from '../../core/usage/currentUsage';
import { shownDetail } from '../../core/scheduler/keptWorktree';

/** `suspension`: read from the processes by `list` and `show` (suspension.ts); the others say null. */
export function jobJson(job: JobRecord, suspension?: Suspension): Record<string, unknown> {
  const l = job.lifecycle;
  const c = job.cleanup;
  const e = job.evidence;
  return {
    id: job.id,
    title: job.title,
    repo: job.repo,
    worktree: job.worktree,
    branch: job.branch,
    base: job.base,
    baseSha: job.baseSha,
    profile: job.profile,
    command: job.command,
    cwd: job.cwd,
    createdAt: job.createdAt,
    lifecycle: {
      state: l.state,
      generation: l.generation,
      exitCode: l.exitCode,
      signal: l.signal,
      pid: l.pid,
      workerPid: l.workerPid,
      startedAt: l.startedAt,
      endedAt: l.endedAt,
      detail: shownDetail(job),
      lastActivityAt: l.lastActivityAt,
      waitingReason: l.waitingReason,
    },
    cleanup: c && {
      phase: c.phase,
      remaining: c.remaining,
      stage: c.stage,
      failures: c.failures,
      nextAttemptAt: c.nextAttemptAt,
      lastError: c.lastError,
      needsAttention: c.needsAttention,
      holders: c.holders.map((h) => ({ pid: h.pid, command: h.command })),
      deleteBranch: c.deleteBranch,
      branchOutcome: c.branchOutcome,
      awaitingConsent: c.awaitingConsent ?? false,
      awaitingRetry: c.awaitingRetry ?? false,
      requestedAt: c.requestedAt,
      updatedAt: c.updatedAt,
    },
    evidence: e && {
      patch: e.patch,
      snapshotRef: e.snapshotRef,
      headSha: e.headSha,
      capturedAt: e.capturedAt,
      snapshotSha: e.snapshotSha ?? null,
      archive: e.archive ?? null,
      inventory: e.inventory ?? null,
      summary: e.summary ?? null,
    },
    recoveries: job.recoveries,
    landing: job.landing ?? null,
    group: job.group ?? null,
    check: job.check ?? null,
    usage: currentUsage(job),
    setup: job.setup ?? null,
    autoApprove: job.autoApprove ?? false,
    leftovers: (job.leftovers ?? []).map((p) => ({ pid: p.pid, command: p.command })),
    // The lifecycle stays as recorded; a stopped worker, agent, launcher, check or cleanup runner is said beside it.
    suspended: suspension
      ? { worker: suspension.worker, agent: suspension.agent, launcher: suspension.launcher ?? null, checkRunner: suspension.checkRunner ?? null, cleanupRunner: suspension.cleanupRunner ?? null, words: suspensionWords(suspension) }
      : null,
  };
}

/** An unreadable record still appears in lists, with the reason instead of its fields. */
export function entryJson(entry: JobEntry, suspension?: Suspension): Record<string, unknown> {
  return entry.ok ? jobJson(entry.job, suspension) : { id: entry.id, unreadable: entry.reason };
}

export function printJson(out: NodeJS.WritableStream, value: unknown): void {
  out.write(`${JSON.stringify(value, null, 2)}\n`);
}
