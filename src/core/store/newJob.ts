/** What a new job is made of: the caller's fields, and the record a create writes first (queued, generation 1). */
import { JobRecord, Lifecycle, SCHEMA_VERSION } from './schema';

/** An execution that has not begun: `queued`, nothing run, nothing exited. */
export function queuedLifecycle(generation: number, lastActivityAt: string | null): Lifecycle {
  return {
    state: 'queued',
    generation,
    exitCode: null,
    signal: null,
    pid: null,
    workerPid: null,
    startedAt: null,
    endedAt: null,
    detail: null,
    lastActivityAt,
    waitingReason: null,
  };
}

export type NewJob = Pick<
  JobRecord,
  'title' | 'repo' | 'worktree' | 'branch' | 'base' | 'baseSha' | 'profile' | 'command' | 'cwd' | 'envNames' | 'settings' | 'autoApprove'
> &
  Partial<Pick<JobRecord, 'group'>>;

export function initialRecord(id: string, init: NewJob, now: string): JobRecord {
  return {
    schemaVersion: SCHEMA_VERSION,
    id,
    title: init.title,
    repo: init.repo,
    worktree: init.worktree,
    branch: init.branch,
    base: init.base,
    baseSha: init.baseSha,
    profile: init.profile,
    command: init.command,
    cwd: init.cwd,
    envNames: init.envNames,
    createdAt: now,
    settings: init.settings,
    lifecycle: queuedLifecycle(1, null),
    launch: null,
    execution: null,
    recoveries: 0,
    cleanup: null,
    evidence: null,
    // Written only when on, so records of agents started without it stay as they were.
    ...(init.autoApprove ? { autoApprove: true } : {}),
    ...(init.group ? { group: init.group } : {}),
  };
}
