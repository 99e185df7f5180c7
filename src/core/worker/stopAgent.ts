/**
 * Terminates an agent's processes — its PTY session plus every process that
 * carries the job's environment marker (escaped with setsid/nohup) — and names
 * whatever survived. Shared by the worker's stop and by `stopJob` when the
 * worker is gone.
 */
import { shownCommandOf, terminateProcessTree } from '../proc';
import { AGENT_MARKER_ENV } from './agentMarker';

export interface NamedProcess {
  pid: number;
  command: string;
}

export interface StopAgentResult {
  /** SIGKILL was needed after the grace. */
  escalated: boolean;
  /** Still running after SIGKILL and a re-scan of /proc (normally empty). */
  survivors: NamedProcess[];
}

export async function stopAgentProcesses(opts: {
  sid: number;
  jobId: string;
  graceMs: number;
  /** Called with the pids about to get SIGKILL. */
  onEscalate?: (pids: number[]) => void;
}): Promise<StopAgentResult> {
  let escalated = false;
  const { survivors } = await terminateProcessTree({
    sid: opts.sid,
    marker: { name: AGENT_MARKER_ENV, value: opts.jobId },
    graceMs: opts.graceMs,
    exclude: [process.pid],
    onEscalate: (pids) => {
      escalated = true;
      opts.onEscalate?.(pids);
    },
  });
  // Whole: the store redacts what it records, then cuts it (messageRedaction.ts).
  return { escalated, survivors: survivors.map((p) => ({ pid: p.pid, command: shownCommandOf(p) })) };
}

export function describeSurvivors(survivors: readonly NamedProcess[]): string {
  return survivors.map((s) => `${s.pid} (${s.command})`).join(', ');
}

/** The record's detail for a stopped agent: how it went, and what would not die. */
export function stopDetail(opts: { escalated: boolean; survivors: NamedProcess[]; graceMs: number }): string {
  // Whole: the store redacts the detail, then cuts it (a secret cut first would not be found).
  if (opts.survivors.length) return `stopped, but still running: ${describeSurvivors(opts.survivors)}`;
  return opts.escalated ? `stopped: killed after the ${opts.graceMs} ms grace` : 'stopped';
}
