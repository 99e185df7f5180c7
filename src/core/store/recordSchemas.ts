/**
 * The job record and everything persisted next to it, as zod schemas. Types
 * come from the schemas (re-exported by `schema.ts` with the record's fixed
 * values); every read from disk goes through them, or through the hand-written
 * check that accepts exactly what they accept (`recordCheck.ts`). Built when
 * first used: modules on the read path reach them through `storeSchemas()`.
 */
import * as z from '../common/zod';
import { EvidenceSummarySchema } from '../git/evidenceManifest';
import { isIsoTime, recordClaimProblem } from './agentClaims';
import { BASE_UPDATES_KEPT, CLEANUP_PHASES, JOB_ID_PATTERN, LIFECYCLE_STATES, SCHEMA_VERSION } from './schema';

export const JobIdSchema = z.string().check(z.regex(JOB_ID_PATTERN, 'not a Paddock job id'));

export const LifecycleStateSchema = z.enum(LIFECYCLE_STATES);
export type LifecycleState = z.infer<typeof LifecycleStateSchema>;

const IsoTime = z.string().check(z.maxLength(64), z.refine(isIsoTime, 'not an ISO 8601 date and time'));
const Bounded = (max: number) => z.string().check(z.maxLength(max));

export const LifecycleSchema = z.object({
  state: LifecycleStateSchema,
  /** 1 for the first execution; retry starts generation + 1. */
  generation: z.number().check(z.int(), z.gte(1)),
  exitCode: z.nullable(z.number().check(z.int())),
  signal: z.nullable(z.string().check(z.maxLength(32))),
  /** The agent's pid (the PTY's session leader). */
  pid: z.nullable(z.number().check(z.int(), z.positive())),
  workerPid: z.nullable(z.number().check(z.int(), z.positive())),
  startedAt: z.nullable(IsoTime),
  endedAt: z.nullable(IsoTime),
  /** One human sentence about the latest transition ("exit 1", "worker died", ...). */
  detail: z.nullable(Bounded(2000)),
  /** Last output or input seen by the worker: drives idle detection and "2m" in the UI. */
  lastActivityAt: z.nullable(IsoTime),
  /** Why the job is `waiting`: an explicit signal, a screen pattern, or idleness. */
  waitingReason: z.nullable(z.enum(['signal', 'pattern', 'idle'])),
});
export type Lifecycle = z.infer<typeof LifecycleSchema>;

/**
 * The worker that owns the current execution. Liveness is judged from pid +
 * start time + boot id, never from the pid alone. Cleared in terminal states.
 */
export const ExecutionSchema = z.object({
  ownerToken: z.string().check(z.minLength(16), z.maxLength(128)),
  generation: z.number().check(z.int(), z.gte(1)),
  pid: z.number().check(z.int(), z.positive()),
  startTime: z.number().check(z.int(), z.nonnegative()),
  bootId: z.string().check(z.maxLength(64)),
  socketPath: z.string().check(z.minLength(1), z.maxLength(200)),
  /** Random token a viewer must present first on the control socket. */
  socketToken: z.string().check(z.minLength(16), z.maxLength(128)),
  claimedAt: IsoTime,
});
export type Execution = z.infer<typeof ExecutionSchema>;

/** Set by whoever spawns a worker, before the worker claims: covers the spawn→claim gap. */
export const LaunchSchema = z.object({
  workerPid: z.number().check(z.int(), z.positive()),
  /** null: the launcher's look at its new worker failed (judged by pid and boot until the claim, bug 219). */
  startTime: z.nullable(z.number().check(z.int(), z.nonnegative())),
  bootId: z.string().check(z.maxLength(64)),
  generation: z.number().check(z.int(), z.gte(1)),
  launchedAt: IsoTime,
});
export type Launch = z.infer<typeof LaunchSchema>;

export const CleanupPhaseSchema = z.enum(CLEANUP_PHASES);
export type CleanupPhase = z.infer<typeof CleanupPhaseSchema>;
export const CleanupResourceSchema = z.enum(['process', 'worktree', 'branch']);
export type CleanupResource = z.infer<typeof CleanupResourceSchema>;

export const HolderSchema = z.object({ pid: z.number().check(z.int(), z.positive()), command: Bounded(500) });
export type Holder = z.infer<typeof HolderSchema>;

/**
 * A process the agent left running. Its start time and boot id tell it from a later
 * process that reuses the pid: readers drop an entry whose process is gone (docs/store.md).
 */
export const LeftoverSchema = z.extend(HolderSchema, {
  startTime: z.optional(z.number().check(z.int(), z.nonnegative())),
  bootId: z.optional(z.string().check(z.maxLength(64))),
});
export type Leftover = z.infer<typeof LeftoverSchema>;

/**
 * The worker ending the leftovers its agent's end listed (endLeftoversOnExit on), while it does: a
 * retry waits for it. `gone`: a reader found it dead before it was done (killed): the listed ones
 * run on, and the lead coordinator ends them.
 */
export const LeftoversEnderSchema = z.object({
  pid: z.number().check(z.int(), z.positive()),
  startTime: z.number().check(z.int(), z.nonnegative()),
  bootId: z.string().check(z.maxLength(64)),
  gone: z.optional(z.boolean()),
});
export type LeftoversEnder = z.infer<typeof LeftoversEnderSchema>;

/**
 * What the detail says of the processes an ended agent left running (store/leftoverWords.ts derives
 * the words from this, `leftovers` and `leftoversEnder`; the detail itself keeps only how the agent
 * ended). Written by the worker with the end. `count`: how many were found (no `outcome`: being
 * ended, or left running); with `outcome`, how many its worker `ended` or Stop `stopped`.
 * `survivors`: what outlived its worker's SIGKILL, as it named them.
 */
export const LeftoversFateSchema = z.object({
  count: z.number().check(z.int(), z.nonnegative()),
  outcome: z.optional(z.enum(['ended', 'stopped'])),
  survivors: z.optional(Bounded(2000)),
  /**
   * The generation whose end it speaks of: an older Paddock's retry keeps a field it does not know,
   * so a fate of another generation (or none named: written before this) says nothing (leftoverWords.ts).
   */
  generation: z.optional(z.number().check(z.int(), z.positive())),
});
export type LeftoversFate = z.infer<typeof LeftoversFateSchema>;

/**
 * A failed launch's worktree and branch left to Clean Up (bug 132): which branch, why, and the
 * generation it speaks of; the words are derived from it (keptWorktree.ts, shown by lifecycleDetail).
 */
export const KeptWorktreeSchema = z.object({
  branch: Bounded(500),
  why: Bounded(2000),
  generation: z.number().check(z.int(), z.positive()),
});
export type KeptWorktree = z.infer<typeof KeptWorktreeSchema>;

export const CleanupSchema = z.object({
  phase: CleanupPhaseSchema,
  remaining: z.array(CleanupResourceSchema),
  /** The stage that failed last (terminating | capturing | removing), null when none failed. */
  stage: z.nullable(z.enum(['terminating', 'capturing', 'removing'])),
  failures: z.number().check(z.int(), z.nonnegative()),
  nextAttemptAt: z.nullable(IsoTime),
  lastError: z.nullable(Bounded(2000)),
  needsAttention: z.boolean(),
  holders: z.array(HolderSchema).check(z.maxLength(50)),
  /** The person asked to delete the branch even if it has unmerged commits. */
  deleteBranch: z.boolean(),
  /** Hash of what the last failed attempt observed: unchanged inputs skip the next automatic attempt. */
  fingerprint: z.nullable(Bounded(128)),
  /** What happened to the branch, in words ("branch kept: 3 commits not merged"). */
  branchOutcome: z.nullable(Bounded(500)),
  requestedAt: IsoTime,
  updatedAt: IsoTime,
  /** Ignored paths that may be dropped as regenerable (globs); absent: the defaults. */
  regenerable: z.optional(z.array(Bounded(256)).check(z.maxLength(100))),
  /** Bytes the archive may hold without consent; absent: the default (100 MB). */
  archiveLimitBytes: z.optional(z.number().check(z.int(), z.nonnegative())),
  /** The person agreed to drop what cannot be archived ("Clean Up Anyway"). */
  dropUnarchivable: z.optional(z.boolean()),
  /** Capture stopped because something would be lost: only the person can move it on. */
  awaitingConsent: z.optional(z.boolean()),
  /** A capture failed the same way several times: not retried on a timer; the person fixes the cause and retries it. */
  awaitingRetry: z.optional(z.boolean()),
  /** The teardown command succeeded: later attempts do not run it again. */
  teardownDone: z.optional(z.boolean()),
  /** The teardown command failed and the person said to clean up anyway: later attempts do not run it again. */
  teardownSkipped: z.optional(z.boolean()),
});
export type Cleanup = z.infer<typeof CleanupSchema>;

export const EvidenceSchema = z.object({
  /** Absolute path of the binary patch in the job folder. */
  patch: z.nullable(z.string().check(z.maxLength(4096))),
  snapshotRef: z.nullable(z.string().check(z.maxLength(300))),
  headSha: z.nullable(z.string().check(z.regex(/^[0-9a-f]{40,64}$/))),
  capturedAt: z.nullable(IsoTime),
  /** The snapshot commit the ref pointed at when captured. */
  snapshotSha: z.optional(z.nullable(z.string().check(z.regex(/^[0-9a-f]{40,64}$/)))),
  /** Absolute path of the archive of what git does not hold (ignored files, empty folders, nested repos). */
  archive: z.optional(z.nullable(z.string().check(z.maxLength(4096)))),
  /** Absolute path of evidence/inventory.json. */
  inventory: z.optional(z.nullable(z.string().check(z.maxLength(4096)))),
  /** What was captured, archived, dropped as regenerable, and lost with consent. */
  summary: z.optional(z.nullable(EvidenceSummarySchema)),
});
export type Evidence = z.infer<typeof EvidenceSchema>;

/** Worktree setup decided at start (issue 13), kept on the job so retry and cleanup need no config. */
export const WorktreeSettingsSchema = z.object({
  copy: z.array(Bounded(1024)).check(z.maxLength(200)),
  link: z.array(Bounded(1024)).check(z.maxLength(200)),
  /** Run in the worktree before the agent, until it has succeeded once. */
  setup: z.nullable(Bounded(8192)),
  setupTimeoutSeconds: z.number().check(z.int(), z.gte(1), z.lte(86_400)),
  /** Run in the worktree in cleanup's terminating stage, before evidence is captured. */
  teardown: z.nullable(Bounded(8192)),
});
export type WorktreeSettings = z.infer<typeof WorktreeSettingsSchema>;

/** Per-job settings resolved from the profile at start, so retry and the worker need no config. */
export const JobSettingsSchema = z.object({
  stopGraceMs: z.number().check(z.int(), z.gte(0), z.lte(600_000)),
  waitingPattern: z.nullable(Bounded(500)),
  idleSeconds: z.nullable(z.number().check(z.gte(0), z.lte(86_400))),
  resumeArgs: z.nullable(z.array(Bounded(4096)).check(z.maxLength(64))),
  /** Names of environment variables whose values are redacted from everything persisted. */
  secretEnvNames: z.array(Bounded(256)).check(z.maxLength(64)),
  autoRestart: z.boolean(),
  recoveryLimit: z.number().check(z.int(), z.gte(0), z.lte(100)),
  /** End what the agent left running when its main process ends (absent: yes). */
  endLeftoversOnExit: z.optional(z.boolean()),
  /** Worktree setup decided at start (issue 13): files brought in, commands run (absent: none). */
  worktree: z.optional(WorktreeSettingsSchema),
  /** The person's check command (`paddock.checkCommand`) when the agent was started (absent: none; `.paddock.json` may give one). */
  checkCommand: z.optional(z.nullable(Bounded(8192))),
  /** The prompt of this generation (the start's, or its retry's) when its argv does not carry it: its worker types it in (with Enter) once the agent asks (absent: none). */
  typedPrompt: z.optional(Bounded(8192)),
  /**
   * The generation whose worker types `typedPrompt` (absent: the first). Paddock before this field
   * kept the start's prompt in `typedPrompt` through its retries (its worker typed it in generation 1
   * only); read here, such a prompt belongs to generation 1 and a later generation types none of it.
   */
  typedPromptGeneration: z.optional(z.number().check(z.int(), z.gte(1))),
});
export type JobSettings = z.infer<typeof JobSettingsSchema>;

/** How the agent's work was landed (issue 12): merge, squash, rebase, fast-forward, apply or pull request. */
export const LandingSchema = z.object({
  kind: z.enum(['merge', 'squash', 'rebase', 'ff', 'apply', 'pr']),
  /** The branch landed on (or the main worktree's path for `apply`, the remote branch for `pr`). */
  into: Bounded(4096),
  /** The commit the target moved to (null for `apply`, which leaves uncommitted changes). */
  commit: z.nullable(z.string().check(z.regex(/^[0-9a-f]{40,64}$/))),
  /** The pull request's (or compare page's) URL, for `pr`. */
  url: z.nullable(Bounded(2000)),
  at: IsoTime,
  /** The agent's branch tip that was landed: cleanup may delete the branch while it still points there (squash, rebase). */
  branchHead: z.optional(z.nullable(z.string().check(z.regex(/^[0-9a-f]{40,64}$/)))),
  /** Done by an earlier run that was stopped before it recorded it, and found (proved, then recorded) by a later one. */
  foundLater: z.optional(z.boolean()),
});
export type Landing = z.infer<typeof LandingSchema>;

/** Several attempts at one task (issue 14): shared by the attempts' records. */
export const GroupSchema = z.object({
  id: JobIdSchema,
  title: Bounded(500),
  /** 1-based position of this attempt in its group. */
  index: z.number().check(z.int(), z.gte(1), z.lte(16)),
  size: z.number().check(z.int(), z.gte(1), z.lte(16)),
});
export type Group = z.infer<typeof GroupSchema>;

/** The repository's check command run in the worktree (issue 14). */
export const CheckSchema = z.object({
  state: z.enum(['queued', 'running', 'passed', 'failed']),
  exitCode: z.nullable(z.number().check(z.int())),
  durationMs: z.nullable(z.number().check(z.int(), z.nonnegative())),
  at: IsoTime,
  /** The last lines of the check's output (redacted, capped). */
  summary: Bounded(4000),
  /** The process running the check (while queued or running): a dead runner's check is run again by the leader. */
  runner: z.optional(z.nullable(z.object({ pid: z.number().check(z.int(), z.positive()), startTime: z.number().check(z.int(), z.nonnegative()), bootId: z.string().check(z.maxLength(64)) }))),
});
export type Check = z.infer<typeof CheckSchema>;

/** What the agent costs (issue 13), sampled while someone looks; null where unknown. */
export const UsageSchema = z.object({
  cpuPercent: z.nullable(z.number().check(z.nonnegative())),
  rssBytes: z.nullable(z.number().check(z.int(), z.nonnegative())),
  diskBytes: z.nullable(z.number().check(z.int(), z.nonnegative())),
  outputBytes: z.nullable(z.number().check(z.int(), z.nonnegative())),
  tokensIn: z.nullable(z.number().check(z.int(), z.nonnegative())),
  tokensOut: z.nullable(z.number().check(z.int(), z.nonnegative())),
  /** The cost the agent itself wrote in its transcript (US dollars); absent or null when it wrote none. */
  costUsd: z.optional(z.nullable(z.number().check(z.nonnegative()))),
  sampledAt: IsoTime,
});
export type Usage = z.infer<typeof UsageSchema>;

/** Worktree setup (issue 13): ports given to the agent and how its setup command went. */
export const SetupSchema = z.object({
  ports: z.array(z.number().check(z.int(), z.gte(1), z.lte(65535))).check(z.maxLength(64)),
  state: z.enum(['none', 'running', 'done', 'failed']),
  exitCode: z.nullable(z.number().check(z.int())),
});
export type Setup = z.infer<typeof SetupSchema>;

/**
 * Loose at the top: a field this version does not know (a newer Paddock's) is kept as read and
 * written back with the record, never dropped by this version's next write. The fast check sends
 * such a record to zod.
 */
export const JobRecordSchema = z.looseObject({
  schemaVersion: z.literal(SCHEMA_VERSION),
  id: JobIdSchema,
  title: Bounded(500),
  /** Absolute path of the main repository (or the directory the agent runs in, without a worktree). */
  repo: z.string().check(z.minLength(1), z.maxLength(4096)),
  worktree: z.nullable(z.string().check(z.maxLength(4096))),
  branch: z.nullable(z.string().check(z.maxLength(300))),
  base: z.nullable(z.string().check(z.maxLength(300))),
  /** The commit the branch started from: reachability and "changed files" are judged against it. */
  baseSha: z.nullable(z.string().check(z.regex(/^[0-9a-f]{40,64}$/))),
  /** The base's commits `paddock update` brought into the branch (oldest first): a landing checks the target still has them, as it checks `baseSha`. */
  baseUpdates: z.optional(z.array(z.string().check(z.regex(/^[0-9a-f]{40,64}$/))).check(z.maxLength(BASE_UPDATES_KEPT))),
  profile: z.nullable(Bounded(100)),
  /** argv: command[0] is the program. */
  command: z.array(Bounded(8192)).check(z.minLength(1), z.maxLength(256)),
  /** Where the agent runs: the worktree, or the directory given at start. */
  cwd: z.string().check(z.minLength(1), z.maxLength(4096)),
  /** Names only: values never reach the store (they may be secrets). */
  envNames: z.array(Bounded(256)).check(z.maxLength(256)),
  createdAt: IsoTime,
  settings: JobSettingsSchema,
  lifecycle: LifecycleSchema,
  launch: z.nullable(LaunchSchema),
  execution: z.nullable(ExecutionSchema),
  /** Consecutive automatic restarts after crashes; reset by a person's retry. */
  recoveries: z.number().check(z.int(), z.nonnegative()),
  cleanup: z.nullable(CleanupSchema),
  evidence: z.nullable(EvidenceSchema),
  /** Fields added after schema version 1 are optional, so older records still read. */
  landing: z.optional(z.nullable(LandingSchema)),
  group: z.optional(z.nullable(GroupSchema)),
  check: z.optional(z.nullable(CheckSchema)),
  usage: z.optional(z.nullable(UsageSchema)),
  setup: z.optional(z.nullable(SetupSchema)),
  /** The agent was started with its profile's auto-approve flag (issue 16). */
  autoApprove: z.optional(z.boolean()),
  /** Processes the agent left running when its main process ended and they were not ended (issue 16). */
  leftovers: z.optional(z.array(LeftoverSchema).check(z.maxLength(50))),
  leftoversEnder: z.optional(z.nullable(LeftoversEnderSchema)),
  /** Absent in records written before it: their detail carries its own words (kept as written). */
  leftoversFate: z.optional(z.nullable(LeftoversFateSchema)),
  /** Absent in records written before it: their detail carries its words (lifted on read: keptWorktree.ts). */
  keptWorktree: z.optional(z.nullable(KeptWorktreeSchema)),
}).check(
  // Its worktree, branch, socket and snapshot ref are the ones Paddock names for its id, never another's (bug 48).
  z.superRefine((record, ctx) => {
    const problem = recordClaimProblem(record);
    if (problem) ctx.addIssue({ code: 'custom', input: record, path: problem.path, message: problem.message });
  }),
);
export type JobRecord = z.infer<typeof JobRecordSchema>;

/** One line of `jobs/<id>/timeline.jsonl`. */
export const TimelineEntrySchema = z.object({
  at: IsoTime,
  generation: z.number().check(z.int(), z.gte(0)),
  type: Bounded(64),
  from: z.optional(LifecycleStateSchema),
  to: z.optional(LifecycleStateSchema),
  message: z.optional(Bounded(2000)),
});
export type TimelineEntry = z.infer<typeof TimelineEntrySchema>;

/** `$PADDOCK_HOME/policy.json` (policy.ts): the values every process on one store must agree on. */
export const StorePolicySchema = z.partial(
  z.strictObject({
    maxConcurrent: z.number().check(z.int(), z.gte(1), z.lte(64)),
    stopGraceSeconds: z.number().check(z.gte(0), z.lte(600)),
    /** Ignored paths cleanup may drop as regenerable (globs: a name matches any path component). */
    regenerable: z.array(z.string().check(z.minLength(1), z.maxLength(256))).check(z.maxLength(100)),
    /** The archive of ignored files and nested repos may hold this many MB without the person's consent. */
    archiveLimitMB: z.number().check(z.gte(0), z.lte(1_000_000)),
  }),
);
export type StorePolicy = z.infer<typeof StorePolicySchema>;
export const STORE_POLICY_KEYS = Object.keys(StorePolicySchema.shape) as (keyof StorePolicy)[];
