/**
 * Which processes are an agent's: its whole session (the PTY's session, led by
 * the agent's pid) and every process carrying its environment marker, which
 * finds descendants that escaped into a session of their own.
 */
import type { ProcessUsage } from '../proc/processUsage';

export interface AgentIdentity {
  id: string;
  /** The agent's pid, which leads its session; null before it started. */
  sessionId: number | null;
}

/** The processes of each agent, by agent id; a process counts once. */
export function processesByAgent(processes: readonly ProcessUsage[], agents: readonly AgentIdentity[]): Map<string, ProcessUsage[]> {
  const bySession = new Map<number, string>();
  const known = new Set<string>();
  for (const a of agents) {
    known.add(a.id);
    if (a.sessionId !== null) bySession.set(a.sessionId, a.id);
  }
  const out = new Map<string, ProcessUsage[]>(agents.map((a) => [a.id, []]));
  for (const p of processes) {
    const owner = p.marker !== undefined && known.has(p.marker) ? p.marker : bySession.get(p.sid);
    if (owner !== undefined) out.get(owner)!.push(p);
  }
  return out;
}
