/**
 * Bug 206's retried looks against the continuity rule (leftScope.ts): a session whose known leader
 * exited after forking is still the agent's for CONTINUITY_MS (500 ms) after a look proved it; a
 * look tried again (500 ms apart, bug 206) outran that alone, and the fork was dropped and left
 * running. The next walk of /proc fails once here (this process's fs.readdirSync of /proc, EMFILE).
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readProcStat, type ProcStat } from '../../../../src/core/proc';
import { LeftScope } from '../../../../src/core/worker/leftScope';
import { sleep } from '../coordinator/coordinatorFixture';
import { useProcessBackend } from '../proc/processBackend';
// eslint-disable-next-line @typescript-eslint/no-require-imports
import fs = require('node:fs'); // the module itself: its readdirSync is replaced for one failed walk

describe('an ended agent\'s session looked at again after a failed look, proc backend (bug 206)', function () {
  this.timeout(30_000);
  useProcessBackend('proc');
  const realReaddir = fs.readdirSync;
  let leader: ChildProcess | undefined;
  let forkPid: number | undefined;
  afterEach(() => {
    (fs as { readdirSync: unknown }).readdirSync = realReaddir;
    for (const pid of [leader?.pid, forkPid]) {
      try {
        if (pid) process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });

  it('a fork whose known leader exited just before a retried look is still ended', async function () {
    // Its own session; told to, it forks a sleep (its pid said on stdout) and exits.
    leader = spawn('sh', ['-c', 'read x; sleep 600 & echo $!; exit 0'], { detached: true, stdio: ['pipe', 'pipe', 'ignore'] });
    let stat: ProcStat | undefined;
    while (!(stat = readProcStat(leader.pid!)) || stat.sid !== leader.pid) await sleep(10);
    const scope = new LeftScope([stat], -1);
    assert.deepEqual((await scope.stillThere()).map((p) => p.pid), [leader.pid], 'the leader, proven the agent\'s');
    const said = new Promise<number>((resolve) => leader!.stdout!.once('data', (d) => resolve(Number(String(d).trim()))));
    const exited = new Promise((resolve) => leader!.once('exit', resolve));
    leader.stdin!.end('go\n');
    forkPid = await said;
    await exited;
    let failed = 0;
    (fs as { readdirSync: unknown }).readdirSync = function (this: unknown, p: fs.PathLike, ...rest: unknown[]) {
      if (p === '/proc' && failed++ === 0) throw Object.assign(new Error("EMFILE: too many open files, scandir '/proc'"), { code: 'EMFILE' });
      return (realReaddir as (...a: unknown[]) => unknown).call(this, p, ...rest);
    };
    const left = await scope.stillThere();
    assert.ok(failed >= 2, 'the look was tried again');
    assert.deepEqual(left.map((p) => p.pid), [forkPid], 'the fork, its session proven a moment before');
  });
});
