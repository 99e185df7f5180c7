/**
 * The job record's fixed values and types. Bump SCHEMA_VERSION and add a step
 * to `migrations.ts` for any incompatible change. The zod schemas the types
 * come from, which every read from disk goes through, are in
 * `recordSchemas.ts`: this module stays free of them, so that whatever only
 * needs a constant or a type (most of the store, `paddock list` of valid
 * records) does not build them.
 */
import type { LifecycleState } from './recordSchemas';

export const SCHEMA_VERSION = 1;

/** Short ids: lowercase base36, 6–12 chars. Validated everywhere so an id can never name a path. */
export const JOB_ID_PATTERN = /^[a-z0-9]{6,12}$/;

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

export const TERMINAL_STATES: readonly LifecycleState[] = ['completed', 'failed', 'cancelled', 'orphaned'];
export function isTerminalState(state: LifecycleState): boolean {
  return TERMINAL_STATES.includes(state);
}

/** How many of the base's commits `paddock update` brought into an agent's branch its record keeps (`baseUpdates`, the newest). */
export const BASE_UPDATES_KEPT = 50;

export const CLEANUP_PHASES = ['requested', 'terminating', 'capturing', 'removing', 'complete', 'incomplete'] as const;

export type {
  LifecycleState,
  Lifecycle,
  Execution,
  Launch,
  CleanupPhase,
  CleanupResource,
  Holder,
  Leftover,
  LeftoversEnder,
  LeftoversFate,
  KeptWorktree,
  Cleanup,
  Evidence,
  WorktreeSettings,
  JobSettings,
  Landing,
  Group,
  Check,
  Usage,
  Setup,
  JobRecord,
  TimelineEntry,
} from './recordSchemas';
