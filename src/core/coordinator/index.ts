/** The coordinator's public surface: import from 'core/coordinator'. */
export { Coordinator } from './coordinator';
export type {
  CoordinatorOptions,
  StopReport,
  StopAllReport,
  CleanupReport,
  CleanupOptions,
  CapacityBlockEvent,
  CoordinatorSnapshot,
} from './coordinator';
export type { CapacityBlocker, CapacityState } from './capacity';
export { capacityOf, holdsSlot } from './capacity';
export type { StartRequest } from './startPlan';
export { DEFAULT_SETTINGS, resolveSettings } from './settings';
export type { CoordinatorSettings, SettingsProvider } from './settings';
export type { StorePolicy } from '../store/policy';
export { backoffDelayMs, dueTime, BACKOFF_CAP_MS, NEEDS_ATTENTION_AFTER } from './backoff';
export { worktreePathFor, branchNameFor } from './worktreePath';
export { defaultRestoreTarget } from './restoreAgent';
