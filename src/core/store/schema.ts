/**
 * The job record and everything persisted next to it, as zod schemas. Types
 * come from the schemas; every read from disk goes through them. Bump
 * SCHEMA_VERSION and add a step to `migrations.ts` for any incompatible change.
 */
import * as z from 'zod';
import { EvidenceSummarySchema } from '../git/evidenceManifest';

export const SCHEMA_VERSION = 1;

/** Short ids: lowercase base36, 6–12 chars. Validated everywhere so an id can never name a path. */
export const JOB_ID_PATTERN = /^[a-z0-9]{6,12}$/;
export const JobIdSchema = z.string().regex(JOB_ID_PATTERN, 'not a Paddock job id');

export const LIFECYCLE_STATES = [
  'queued',
  'starting',
  'running',
  'waiting',
  'cancelling',
  'completed',
  'failed',
  'cancelled',
  'orphaned',
] as const;
export const LifecycleStateSchema = z.enum(LIFECYCLE_STATES);
export type LifecycleState = z.infer<typeof LifecycleStateSchema>;

export const TERMINAL_STATES: readonly LifecycleState[] = ['completed', 'failed', 'cancelled', 'orphaned'];
export function isTerminalState(state: LifecycleState): boolean {
  return TERMINAL_STATES.includes(state);
}

const IsoTime = z.string().min(1).max(64);
const Bounded = (max: number) => z.string().max(max);

export const LifecycleSchema = z.object({
  state: LifecycleStateSchema,
  /** 1 for the first execution; retry starts generation + 1. */
  generation: z.number().int().min(1),
  exitCode: z.number().int().nullable(),
  signal: z.string().max(32).nullable(),
  /** The agent's pid (the PTY's session leader). */
  pid: z.number().int().positive().nullable(),
  workerPid: z.number().int().positive().nullable(),
  startedAt: IsoTime.nullable(),
  endedAt: IsoTime.nullable(),
  /** One human sentence about the latest transition ("exit 1", "worker died", ...). */
  detail: Bounded(2000).nullable(),
  /** Last output or input seen by the worker: drives idle detection and "2m" in the UI. */
  lastActivityAt: IsoTime.nullable(),
  /** Why the job is `waiting`: an explicit signal, a screen pattern, or idleness. */
  waitingReason: z.enum(['signal', 'pattern', 'idle']).nullable(),
});
export type Lifecycle = z.infer<typeof LifecycleSchema>;

/**
 * The worker that owns the current execution. Liveness is judged from pid +
 * start time + boot id, never from the pid alone. Cleared in terminal states.
 */
export const ExecutionSchema = z.object({
  ownerToken: z.string().min(16).max(128),
  generation: z.number().int().min(1),
  pid: z.number().int().positive(),
  startTime: z.number().int().nonnegative(),
  bootId: z.string().max(64),
  socketPath: z.string().min(1).max(200),
  /** Random token a viewer must present first on the control socket. */
  socketToken: z.string().min(16).max(128),
  claimedAt: IsoTime,
});
export type Execution = z.infer<typeof ExecutionSchema>;

/** Set by whoever spawns a worker, before the worker claims: covers the spawn→claim gap. */
export const LaunchSchema = z.object({
  workerPid: z.number().int().positive(),
  startTime: z.number().int().nonnegative(),
  bootId: z.string().max(64),
  generation: z.number().int().min(1),
  launchedAt: IsoTime,
});
export type Launch = z.infer<typeof LaunchSchema>;

export const CLEANUP_PHASES = ['requested', 'terminating', 'capturing', 'removing', 'complete', 'incomplete'] as const;
export const CleanupPhaseSchema = z.enum(CLEANUP_PHASES);
export type CleanupPhase = z.infer<typeof CleanupPhaseSchema>;
export const CleanupResourceSchema = z.enum(['process', 'worktree', 'branch']);
export type CleanupResource = z.infer<typeof CleanupResourceSchema>;

export const HolderSchema = z.object({ pid: z.number().int().positive(), command: Bounded(500) });
export type Holder = z.infer<typeof HolderSchema>;

/**
 * A process the agent left running. Its start time and boot id tell it from a later
 * process that reuses the pid: readers drop an entry whose process is gone (docs/store.md).
 */
export const LeftoverSchema = HolderSchema.extend({
  startTime: z.number().int().nonnegative().optional(),
  bootId: z.string().max(64).optional(),
});
export type Leftover = z.infer<typeof LeftoverSchema>;

export const CleanupSchema = z.object({
  phase: CleanupPhaseSchema,
  remaining: z.array(CleanupResourceSchema),
  /** The stage that failed last (terminating | capturing | removing), null when none failed. */
  stage: z.enum(['terminating', 'capturing', 'removing']).nullable(),
  failures: z.number().int().nonnegative(),
  nextAttemptAt: IsoTime.nullable(),
  lastError: Bounded(2000).nullable(),
  needsAttention: z.boolean(),
  holders: z.array(HolderSchema).max(50),
  /** The person asked to delete the branch even if it has unmerged commits. */
  deleteBranch: z.boolean(),
  /** Hash of what the last failed attempt observed: unchanged inputs skip the next automatic attempt. */
  fingerprint: Bounded(128).nullable(),
  /** What happened to the branch, in words ("branch kept: 3 commits not merged"). */
  branchOutcome: Bounded(500).nullable(),
  requestedAt: IsoTime,
  updatedAt: IsoTime,
  /** Ignored paths that may be dropped as regenerable (globs); absent: the defaults. */
  regenerable: z.array(Bounded(256)).max(100).optional(),
  /** Bytes the archive may hold without consent; absent: the default (100 MB). */
  archiveLimitBytes: z.number().int().nonnegative().optional(),
  /** The person agreed to drop what cannot be archived ("Clean Up Anyway"). */
  dropUnarchivable: z.boolean().optional(),
  /** Capture stopped because something would be lost: only the person can move it on. */
  awaitingConsent: z.boolean().optional(),
  /** The teardown command succeeded: later attempts do not run it again. */
  teardownDone: z.boolean().optional(),
});
export type Cleanup = z.infer<typeof CleanupSchema>;

export const EvidenceSchema = z.object({
  /** Absolute path of the binary patch in the job folder. */
  patch: z.string().max(4096).nullable(),
  snapshotRef: z.string().max(300).nullable(),
  headSha: z.string().regex(/^[0-9a-f]{40,64}$/).nullable(),
  capturedAt: IsoTime.nullable(),
  /** The snapshot commit the ref pointed at when captured. */
  snapshotSha: z.string().regex(/^[0-9a-f]{40,64}$/).nullable().optional(),
  /** Absolute path of the archive of what git does not hold (ignored files, empty folders, nested repos). */
  archive: z.string().max(4096).nullable().optional(),
  /** Absolute path of evidence/inventory.json. */
  inventory: z.string().max(4096).nullable().optional(),
  /** What was captured, archived, dropped as regenerable, and lost with consent. */
  summary: EvidenceSummarySchema.nullable().optional(),
});
export type Evidence = z.infer<typeof EvidenceSchema>;

/** Worktree setup decided at start (issue 13), kept on the job so retry and cleanup need no config. */
export const WorktreeSettingsSchema = z.object({
  copy: z.array(Bounded(1024)).max(200),
  link: z.array(Bounded(1024)).max(200),
  /** Run in the worktree before the agent, until it has succeeded once. */
  setup: Bounded(8192).nullable(),
  setupTimeoutSeconds: z.number().int().min(1).max(86_400),
  /** Run in the worktree in cleanup's terminating stage, before evidence is captured. */
  teardown: Bounded(8192).nullable(),
});
export type WorktreeSettings = z.infer<typeof WorktreeSettingsSchema>;

/** Per-job settings resolved from the profile at start, so retry and the worker need no config. */
export const JobSettingsSchema = z.object({
  stopGraceMs: z.number().int().min(0).max(600_000),
  waitingPattern: Bounded(500).nullable(),
  idleSeconds: z.number().min(0).max(86_400).nullable(),
  resumeArgs: z.array(Bounded(4096)).max(64).nullable(),
  /** Names of environment variables whose values are redacted from everything persisted. */
  secretEnvNames: z.array(Bounded(256)).max(64),
  autoRestart: z.boolean(),
  recoveryLimit: z.number().int().min(0).max(100),
  /** End what the agent left running when its main process ends (absent: yes). */
  endLeftoversOnExit: z.boolean().optional(),
  /** Worktree setup decided at start (issue 13): files brought in, commands run (absent: none). */
  worktree: WorktreeSettingsSchema.optional(),
  /** The person's check command (`paddock.checkCommand`) when the agent was started (absent: none; `.paddock.json` may give one). */
  checkCommand: Bounded(8192).nullable().optional(),
});
export type JobSettings = z.infer<typeof JobSettingsSchema>;

/** How the agent's work was landed (issue 12): merge, squash, rebase, fast-forward, apply or pull request. */
export const LandingSchema = z.object({
  kind: z.enum(['merge', 'squash', 'rebase', 'ff', 'apply', 'pr']),
  /** The branch landed on (or the main worktree's path for `apply`, the remote branch for `pr`). */
  into: Bounded(4096),
  /** The commit the target moved to (null for `apply`, which leaves uncommitted changes). */
  commit: z.string().regex(/^[0-9a-f]{40,64}$/).nullable(),
  /** The pull request's (or compare page's) URL, for `pr`. */
  url: Bounded(2000).nullable(),
  at: IsoTime,
  /** The agent's branch tip that was landed: cleanup may delete the branch while it still points there (squash, rebase). */
  branchHead: z.string().regex(/^[0-9a-f]{40,64}$/).nullable().optional(),
});
export type Landing = z.infer<typeof LandingSchema>;

/** Several attempts at one task (issue 14): shared by the attempts' records. */
export const GroupSchema = z.object({
  id: JobIdSchema,
  title: Bounded(500),
  /** 1-based position of this attempt in its group. */
  index: z.number().int().min(1).max(16),
  size: z.number().int().min(1).max(16),
});
export type Group = z.infer<typeof GroupSchema>;

/** The repository's check command run in the worktree (issue 14). */
export const CheckSchema = z.object({
  state: z.enum(['queued', 'running', 'passed', 'failed']),
  exitCode: z.number().int().nullable(),
  durationMs: z.number().int().nonnegative().nullable(),
  at: IsoTime,
  /** The last lines of the check's output (redacted, capped). */
  summary: Bounded(4000),
  /** The process running the check (while queued or running): a dead runner's check is run again by the leader. */
  runner: z.object({ pid: z.number().int().positive(), startTime: z.number().int().nonnegative(), bootId: z.string().max(64) }).nullable().optional(),
});
export type Check = z.infer<typeof CheckSchema>;

/** What the agent costs (issue 13), sampled while someone looks; null where unknown. */
export const UsageSchema = z.object({
  cpuPercent: z.number().nonnegative().nullable(),
  rssBytes: z.number().int().nonnegative().nullable(),
  diskBytes: z.number().int().nonnegative().nullable(),
  outputBytes: z.number().int().nonnegative().nullable(),
  tokensIn: z.number().int().nonnegative().nullable(),
  tokensOut: z.number().int().nonnegative().nullable(),
  sampledAt: IsoTime,
});
export type Usage = z.infer<typeof UsageSchema>;

/** Worktree setup (issue 13): ports given to the agent and how its setup command went. */
export const SetupSchema = z.object({
  ports: z.array(z.number().int().min(1).max(65535)).max(64),
  state: z.enum(['none', 'running', 'done', 'failed']),
  exitCode: z.number().int().nullable(),
});
export type Setup = z.infer<typeof SetupSchema>;

export const JobRecordSchema = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  id: JobIdSchema,
  title: Bounded(500),
  /** Absolute path of the main repository (or the directory the agent runs in, without a worktree). */
  repo: z.string().min(1).max(4096),
  worktree: z.string().max(4096).nullable(),
  branch: z.string().max(300).nullable(),
  base: z.string().max(300).nullable(),
  /** The commit the branch started from: reachability and "changed files" are judged against it. */
  baseSha: z.string().regex(/^[0-9a-f]{40,64}$/).nullable(),
  profile: Bounded(100).nullable(),
  /** argv: command[0] is the program. */
  command: z.array(Bounded(8192)).min(1).max(256),
  /** Where the agent runs: the worktree, or the directory given at start. */
  cwd: z.string().min(1).max(4096),
  /** Names only: values never reach the store (they may be secrets). */
  envNames: z.array(Bounded(256)).max(256),
  createdAt: IsoTime,
  settings: JobSettingsSchema,
  lifecycle: LifecycleSchema,
  launch: LaunchSchema.nullable(),
  execution: ExecutionSchema.nullable(),
  /** Consecutive automatic restarts after crashes; reset by a person's retry. */
  recoveries: z.number().int().nonnegative(),
  cleanup: CleanupSchema.nullable(),
  evidence: EvidenceSchema.nullable(),
  /** Fields added after schema version 1 are optional, so older records still read. */
  landing: LandingSchema.nullable().optional(),
  group: GroupSchema.nullable().optional(),
  check: CheckSchema.nullable().optional(),
  usage: UsageSchema.nullable().optional(),
  setup: SetupSchema.nullable().optional(),
  /** The agent was started with its profile's auto-approve flag (issue 16). */
  autoApprove: z.boolean().optional(),
  /** Processes the agent left running when its main process ended and they were not ended (issue 16). */
  leftovers: z.array(LeftoverSchema).max(50).optional(),
});
export type JobRecord = z.infer<typeof JobRecordSchema>;

/** One line of `jobs/<id>/timeline.jsonl`. */
export const TimelineEntrySchema = z.object({
  at: IsoTime,
  generation: z.number().int().min(0),
  type: Bounded(64),
  from: LifecycleStateSchema.optional(),
  to: LifecycleStateSchema.optional(),
  message: Bounded(2000).optional(),
});
export type TimelineEntry = z.infer<typeof TimelineEntrySchema>;
