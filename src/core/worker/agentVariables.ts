/**
 * The variables that tell an agent (and its setup and teardown commands) where
 * it is: its id, its worktree, its repository and, when it was given ports,
 * the first one and the whole block. Scripts and dev servers read them
 * (`PORT=$PADDOCK_PORT npm run dev`).
 */
import type { JobRecord } from '../store/schema';

export const AGENT_VARIABLE_NAMES = ['PADDOCK_AGENT_ID', 'PADDOCK_WORKTREE', 'PADDOCK_REPO', 'PADDOCK_PORT', 'PADDOCK_PORTS'] as const;

export function agentVariables(job: JobRecord): Record<string, string> {
  const vars: Record<string, string> = {
    PADDOCK_AGENT_ID: job.id,
    PADDOCK_WORKTREE: job.worktree ?? job.cwd,
    PADDOCK_REPO: job.repo,
  };
  const ports = job.setup?.ports ?? [];
  if (ports.length > 0) {
    vars.PADDOCK_PORT = String(ports[0]);
    vars.PADDOCK_PORTS = ports.join(',');
  }
  return vars;
}
