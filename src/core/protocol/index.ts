/** The control socket's public surface: messages, the client, and where sockets live. */
export * from './messages';
export { WorkerClient, MAX_SERVER_LINE_BYTES } from './client';
export type { ConnectOptions, JobReader, StopResult } from './client';
export { runtimeDirFor, ensureRuntimeDir, socketPathFor, socketFileName, checkSocketPath, removeJobSockets, MAX_SOCKET_PATH_BYTES } from './runtimeDir';
export { RESET_TERMINAL_MODES } from './terminalModes';
export { trimScreen } from './trimScreen';
