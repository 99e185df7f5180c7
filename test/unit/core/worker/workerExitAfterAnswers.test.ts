/**
 * Bug 173 (a third review): the worker's wait for answers still in a closing socket (a detached viewer owed its
 * `ack` behind output it has not read) kept it alive about 28 s after its agent ended, and a SIGTERM did not end
 * it, so bug 22's exit within a second no longer held. Now the wait ends at the linger (2 s) after the end is
 * recorded, or at once at a SIGTERM, also one that came while the agent still ran (bug 223). A real worker and
 * agent; the worker's pid watched every 20 ms.
 */
import * as assert from 'node:assert/strict';
import { createConnection, Socket } from 'node:net';
import { readProcStat } from '../../../../src/core/proc';
import { sleep, useWorkerSandbox } from './fixtures';

/** Attaches writable reading nothing, then sends `send` and `detach` once the agent's 3 MB are queued. */
function viewerReadingNothing(path: string, token: string): Socket {
  const s = createConnection({ path, allowHalfOpen: true });
  s.on('error', () => undefined);
  s.once('connect', () => {
    s.pause();
    s.write(`${JSON.stringify({ type: 'attach', token, cols: 80, rows: 24, readOnly: false })}\n`);
    setTimeout(() => s.write(`${JSON.stringify({ type: 'send', id: 5, text: 'hi' })}\n${JSON.stringify({ type: 'detach' })}\n`), 3000);
  });
  return s;
}

async function exitedWithin(pid: number, ms: number): Promise<number> {
  const t0 = Date.now();
  while (Date.now() - t0 < ms) {
    const stat = readProcStat(pid);
    if (!stat || stat.state === 'Z') return Date.now() - t0;
    await sleep(20);
  }
  return -1;
}

describe('the worker exits after its agent ended though a detached viewer reads nothing (bug 173)', function () {
  this.timeout(90_000);
  const ctx = useWorkerSandbox();
  const agent = ['sh', '-c', `sleep 1.5; head -c 3000000 /dev/zero | tr '\\0' x; sleep 3; exit 0`];

  for (const sigterm of [false, true]) {
    it(sigterm ? 'a SIGTERM once it ended: it exits within a second' : 'it exits within the linger (2 s) of its end, not 30 s later', async () => {
      const job = await ctx.sb.start(agent, { waitFor: ['running'] });
      const exec = (await ctx.sb.store.read(job.id)).execution!;
      const s = viewerReadingNothing(exec.socketPath, exec.socketToken);
      try {
        const ended = await ctx.sb.waitForState(job.id, ['completed', 'failed', 'cancelled'], 30_000);
        assert.equal(ended.lifecycle.state, 'completed');
        if (sigterm) process.kill(exec.pid, 'SIGTERM');
        const took = await exitedWithin(exec.pid, 40_000);
        assert.ok(took >= 0 && took < (sigterm ? 1000 : 3000), `the worker exited ${took} ms after ${sigterm ? 'the SIGTERM' : 'the end was seen'}`);
      } finally {
        s.destroy();
      }
    });
  }

  it('bug 223: a SIGTERM while the agent still runs: the stop recorded, it exits within a second, not after the 2 s wait for answers', async () => {
    const job = await ctx.sb.start(['sh', '-c', `sleep 1.5; head -c 3000000 /dev/zero | tr '\\0' x; sleep 30`], { waitFor: ['running'] });
    const exec = (await ctx.sb.store.read(job.id)).execution!;
    const s = viewerReadingNothing(exec.socketPath, exec.socketToken);
    try {
      await sleep(4000); // its send's ack and the detach wait behind the 3 MB it has not read
      process.kill(exec.pid, 'SIGTERM');
      const ended = await ctx.sb.waitForState(job.id, ['completed', 'failed', 'cancelled'], 30_000);
      assert.equal(ended.lifecycle.state, 'cancelled', 'the SIGTERM came while the agent ran');
      const took = await exitedWithin(exec.pid, 40_000);
      assert.ok(took >= 0 && took < 1000, `the worker exited ${took} ms after its stop was recorded`);
    } finally {
      s.destroy();
    }
  });
});
