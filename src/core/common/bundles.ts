/**
 * Where Paddock's other bundles are. Every bundle is a file in the same dist/
 * folder (the extension, the CLI and the worker are built side by side), so
 * each finds the others beside itself; PADDOCK_CLI_SCRIPT and
 * PADDOCK_WORKER_SCRIPT override that (development, tests).
 */
import * as path from 'node:path';

/** The `paddock` CLI: dist/cli.js. */
export function cliBundlePath(env: NodeJS.ProcessEnv): string {
  return env.PADDOCK_CLI_SCRIPT || path.join(__dirname, 'cli.js');
}

/** The worker: dist/worker.js. */
export function workerBundlePath(env: NodeJS.ProcessEnv): string {
  return env.PADDOCK_WORKER_SCRIPT || path.join(__dirname, 'worker.js');
}
