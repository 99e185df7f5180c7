/** Real child processes for the proc tests, always killed afterwards. */
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readProcStat } from '../../../../src/core/proc/identity';
import { findByEnvMarker, sessionMembers } from '../../../../src/core/proc/scan';

export const MARKER_NAME = 'PADDOCK_TEST_MARKER';

export class Spawned {
  private readonly markers: string[] = [];
  private readonly sids: number[] = [];
  private readonly children: ChildProcess[] = [];

  newMarker(): string {
    const value = `t-${randomBytes(6).toString('hex')}`;
    this.markers.push(value);
    return value;
  }

  /** Runs `script` with bash in a new session (pid = pgid = sid), carrying the marker. */
  session(script: string, marker: string, extraEnv: NodeJS.ProcessEnv = {}): number {
    const child = spawn('bash', ['-c', script], {
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, ...extraEnv, [MARKER_NAME]: marker },
    });
    child.unref();
    if (child.pid === undefined) throw new Error('spawn failed');
    this.children.push(child);
    this.sids.push(child.pid);
    return child.pid;
  }

  track(child: ChildProcess): ChildProcess {
    this.children.push(child);
    return child;
  }

  /** SIGKILLs everything this test started: sessions, marked processes, direct children. */
  killAll(): void {
    const victims = new Set<number>();
    for (const sid of this.sids) for (const p of sessionMembers(sid)) victims.add(p.pid);
    for (const m of this.markers) for (const p of findByEnvMarker(MARKER_NAME, m)) victims.add(p.pid);
    for (const c of this.children) if (c.pid !== undefined && c.exitCode === null) victims.add(c.pid);
    victims.delete(process.pid);
    for (const pid of victims) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

export async function waitFor<T>(what: string, probe: () => T | undefined | false, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export function running(pid: number): boolean {
  const s = readProcStat(pid);
  return s !== undefined && s.state !== 'Z' && s.state !== 'X';
}
