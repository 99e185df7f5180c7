/**
 * Bug 114, review: after an agent's recorded end its worker ended whole sessions its exit scan had
 * seen, for up to ~8 s, by their number alone. A session that emptied meanwhile may have its number
 * handed to another job's agent's new session, whose processes were then TERMed and KILLed. A
 * session is now ended only while a member proven the agent's (by pid and start time) is in it.
 * The reuse is staged as the kernel would leave it: a live session whose leader has the recorded
 * pid but another start time. Real processes; both process backends.
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readProcStat, type ProcStat } from '../../../../src/core/proc';
import { processBackend } from '../../../../src/core/proc/backend';
import { LeftScope } from '../../../../src/core/worker/leftScope';
import { endLeftovers } from '../../../../src/core/worker/leftovers';
import { sleep } from '../coordinator/coordinatorFixture';
import { useProcessBackend } from '../proc/processBackend';

/** A pid that names no process now (a child that has exited and been reaped): the agent's ended PTY session. */
async function goneSid(): Promise<number> {
  const child = spawn('true');
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

async function statOf(pid: number): Promise<ProcStat> {
  for (let i = 0; i < 100; i++) {
    const stat = readProcStat(pid);
    if (stat && stat.sid === pid) return stat;
    await sleep(10);
  }
  throw new Error(`process ${pid} did not start its own session`);
}

for (const backend of ['proc', 'portable'] as const) {
  describe(`what an ended agent left is ended only where its exit scan proves it the agent's, ${backend} backend`, function () {
    this.timeout(30_000);
    const started: ChildProcess[] = [];
    useProcessBackend(backend);
    afterEach(() => {
      for (const child of started.splice(0)) {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    });

    /** A new session (as `setsid` makes one): `script` run by sh as its leader. */
    function session(script: string): ChildProcess {
      const child = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' });
      started.push(child);
      return child;
    }

    it('a session whose number the scan saw but whose leader is another process now is not signalled', async () => {
      const other = session('trap "" TERM; sleep 613 & wait');
      const leader = await statOf(other.pid!);
      await sleep(200); // its member started too
      // The scan at the exit saw a session leader with this pid: another process, started earlier.
      const seen = { ...leader, startTime: leader.startTime - 100 };
      const result = await endLeftovers({ scope: new LeftScope([seen], await goneSid()), graceMs: 300 });
      assert.deepEqual(result, { ended: 0, survivors: [] });
      const now = readProcStat(leader.pid);
      assert.equal(now?.startTime, leader.startTime, "the other job's session leader was not signalled");
      assert.notEqual(now?.state, 'Z');
    });

    it("a session whose leader the scan saw is ended whole, a member forked after the scan too, TERM-ignoring ones by KILL", async () => {
      const escapee = session('trap "" TERM; sleep 614 & wait');
      const leader = await statOf(escapee.pid!);
      // Only the leader was seen at the exit; its child joins the session afterwards.
      const result = await endLeftovers({ scope: new LeftScope([leader], await goneSid()), graceMs: 300 });
      assert.equal(result.survivors.length, 0, JSON.stringify(result));
      assert.equal(result.ended, 2);
      const after = readProcStat(leader.pid);
      assert.ok(!after || after.startTime !== leader.startTime || after.state === 'Z', 'the leader was ended');
    });

    // Third review: a look walked the process table once per session, so with many processes a round
    // of looks outran the 500 ms continuity rule. One look is now one walk (one `ps`) for all of them.
    it('one look over several sessions walks the process table once', async () => {
      const leaders = await Promise.all([0, 1, 2, 3].map((i) => statOf(session(`sleep ${620 + i}`).pid!)));
      const scope = new LeftScope(leaders, await goneSid());
      const backendNow = processBackend() as unknown as Record<string, (...args: unknown[]) => unknown>;
      // The sessions' members only (the scan's own processes are judged by a separate look).
      const walks = ['treeMembersAsync', 'sessionsMembersAsync'].filter((name) => typeof backendNow[name] === 'function');
      const originals = new Map(walks.map((name) => [name, backendNow[name]]));
      let count = 0;
      for (const [name, fn] of originals) backendNow[name] = (...args: unknown[]) => (count++, fn(...args));
      try {
        const found = await scope.stillThere();
        for (const l of leaders) assert.ok(found.some((p) => p.pid === l.pid), `leader ${l.pid} found`);
      } finally {
        for (const [name, fn] of originals) backendNow[name] = fn;
      }
      assert.equal(count, 1, 'looks at session members in one look over 4 sessions');
    });
  });
}
