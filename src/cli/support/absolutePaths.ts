/**
 * The environment variables that place the store and the sockets, made absolute against the
 * directory the command was run in. A relative `PADDOCK_HOME=store` named one folder for the CLI
 * and another for the worker it starts, whose cwd is the agent's worktree: the worker never found
 * its job and the agent never started.
 */
import { isAbsolute, resolve } from 'node:path';

const PLACING_PATHS = ['PADDOCK_HOME', 'PADDOCK_RUNTIME_DIR', 'XDG_STATE_HOME', 'XDG_RUNTIME_DIR'] as const;

/** Rewrites, in `env`, each of those set to a relative path as that path resolved against `cwd`. */
export function makePlacingPathsAbsolute(env: NodeJS.ProcessEnv, cwd: string): void {
  for (const name of PLACING_PATHS) {
    const value = env[name];
    if (value && !isAbsolute(value)) env[name] = resolve(cwd, value);
  }
}
