/** The worker's public surface for the coordinator, the CLI and the extension. */
export { spawnWorker, WORKER_LOG_FILE, isPlainNode } from './spawn';
export type { SpawnWorkerOptions } from './spawn';
export { stopJob } from './stopJob';
export type { StopJobOptions } from './stopJob';
export { AGENT_MARKER_ENV } from './agentMarker';
export { FINAL_SCREEN_FILE } from './finalScreen';
