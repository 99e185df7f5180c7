/** The worker's public surface for the coordinator, the CLI and the extension. */
export { spawnWorker, WORKER_LOG_FILE, isPlainNode } from './spawn';
export type { SpawnWorkerOptions } from './spawn';
export { stopJob } from './stopJob';
export type { StopJobOptions } from './stopJob';
export { ENV_MARKER } from './ptyHost';
export { FINAL_SCREEN_FILE } from './agentWorker';
