/**
 * The one environment of every command Paddock runs for an agent — its setup,
 * the agent itself, its check and its worktree's teardown: the environment it
 * was started with, minus the caller's own per-agent Paddock variables, plus
 * this agent's. An agent started from inside another (or from a shell that has
 * them) would otherwise carry the parent's marker — a stop of the parent would
 * end it, and what its teardown left would be taken for the parent's — and the
 * parent's socket, token and ports. Kept apart from the PTY host so the
 * coordinator and the check can use it without loading node-pty.
 */
import type { JobRecord } from '../store/schema';
import { AGENT_MARKER_ENV } from './agentMarker';
import { AGENT_VARIABLE_NAMES, agentVariables } from './agentVariables';

/** Variables that name one agent or one run of a command for it: never inherited from the caller. */
export const PER_AGENT_ENV: readonly string[] = [
  AGENT_MARKER_ENV,
  'PADDOCK_SOCKET',
  'PADDOCK_AGENT_TOKEN',
  'PADDOCK_CHECK',
  'PADDOCK_CHECK_RUN',
  ...AGENT_VARIABLE_NAMES,
];

/**
 * `env` without the caller's per-agent variables: for a process Paddock starts for the whole store
 * (a worker, a background coordinator) from a command an agent ran. Carrying the agent's marker, it
 * was taken for the agent's own: counted in its figures, and ended by its stop (bug 162).
 */
export function withoutAgentVariables(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  for (const name of PER_AGENT_ENV) delete out[name];
  return out;
}

/** Variables of the runtime that must not reach an agent's commands: a debugger bootloader rides on NODE_OPTIONS; the Electron switch breaks node-based tools. */
const RUNTIME_ONLY_ENV: readonly string[] = ['NODE_OPTIONS', 'ELECTRON_RUN_AS_NODE'];

export interface AgentOwnEnv {
  /** The worker's control socket and the agent's token (`paddock signal`): only while a worker serves the agent. */
  socketPath?: string;
  agentToken?: string;
}

export function agentCommandEnv(base: NodeJS.ProcessEnv, job: JobRecord, own: AgentOwnEnv = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) {
    if (v !== undefined && !PER_AGENT_ENV.includes(k) && !RUNTIME_ONLY_ENV.includes(k)) env[k] = v;
  }
  env[AGENT_MARKER_ENV] = job.id;
  if (own.socketPath) env.PADDOCK_SOCKET = own.socketPath;
  if (own.agentToken) env.PADDOCK_AGENT_TOKEN = own.agentToken;
  Object.assign(env, agentVariables(job));
  return env;
}
