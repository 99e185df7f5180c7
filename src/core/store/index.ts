/** The job store's public surface: import from 'core/store', not from its files. */
export { JobStore } from './jobStore';
export type { NewJob } from './newJob';
export type { JobEntry, JobStoreOptions, UpdateOptions, TransitionOptions, ClaimOptions, UnresponsiveWorker } from './jobStore';
export type { ExecutionClaim, Fence } from './executionClaim';
export type { OutputLog } from './outputLog';
export { DEFAULT_OUTPUT_CAP } from './outputLog';
export { OUTPUT_START } from './outputReader';
export type { OutputPosition, OutputRead } from './outputReader';
export type { JobWatcher, WatchOptions } from './watcher';
export { Redactor, REDACTED } from './redactor';
export { LEGAL_TRANSITIONS, isLegalTransition } from './lifecycle';
export { judgeOwnership, LAUNCH_FAILED_DETAIL, NO_OWNER_DETAIL } from './ownership';
export { defaultHome, isJobId, assertJobId } from './paths';
export { migrateRecord } from './migrations';
export { lifecycleDetail, processCount } from './leftoverWords';
export * from './schema';
export { PolicyFile, POLICY_FILE } from './policy';
export type { StorePolicy } from './policy';
