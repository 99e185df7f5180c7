/**
 * Bug 173 (its review): a writable viewer owed an answer (a `send`'s `ack`, a `stop`'s `stopped`) whose socket still
 * held output it had not read lost the answer when it detached or half-closed: the worker destroyed
 * the connection once the answer was written (bug 173's first fix), dropping it with the output before
 * it; and a connection ended after its answers was destroyed a second later, read or not. A real
 * worker and agent: 3 MB of output wait in the viewer's socket, then the request and the end.
 */
import * as assert from 'node:assert/strict';
import { createConnection } from 'node:net';
import { useWorkerSandbox } from './fixtures';

/** Attaches writable reading nothing, sends `request` and ends (`detach` or a half-close) once the flood is queued, reads after `readAfterMs`. */
function requestBehindOutput(path: string, token: string, request: object, how: 'detach' | 'half-close', readAfterMs: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const s = createConnection({ path, allowHalfOpen: true });
    let got = '';
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error('the worker kept the connection open'));
    }, 40_000);
    s.on('data', (d) => (got += d.toString()));
    s.on('error', () => undefined);
    s.on('end', () => s.end());
    s.on('close', () => {
      clearTimeout(timer);
      // Each frame's type (and id); a frame cut short by a destroy shows as `cut`; runs of output as one.
      const types = got.split('\n').filter(Boolean).map((l) => {
        try {
          const f = JSON.parse(l) as { type: string; id?: number };
          return `${f.type}${f.id ?? ''}`;
        } catch {
          return 'cut';
        }
      });
      resolve(types.filter((t, i) => t !== 'output' || types[i - 1] !== 'output'));
    });
    s.once('connect', () => {
      s.pause(); // the agent's output waits in the worker
      s.write(`${JSON.stringify({ type: 'attach', token, cols: 80, rows: 24, readOnly: false })}\n`);
      setTimeout(() => {
        s.write(`${JSON.stringify(request)}\n${how === 'detach' ? `${JSON.stringify({ type: 'detach' })}\n` : ''}`);
        if (how === 'half-close') s.end();
        setTimeout(() => s.resume(), readAfterMs);
      }, 4000);
    });
  });
}

describe('a viewer owed an answer behind output it has not read (bug 173)', function () {
  this.timeout(90_000);
  const ctx = useWorkerSandbox();
  const flood = (prefix: string) => ['sh', '-c', `${prefix}sleep 1.5; head -c 3000000 /dev/zero | tr '\\0' x; sleep 60`];

  for (const [how, readAfterMs] of [['half-close', 200], ['detach', 200], ['half-close', 2500]] as const) {
    it(`a send then a ${how}, read ${readAfterMs} ms later: the ack comes after all the output`, async () => {
      const job = await ctx.sb.start(flood(''), { waitFor: ['running'] });
      const exec = (await ctx.sb.store.read(job.id)).execution!;
      const types = await requestBehindOutput(exec.socketPath, exec.socketToken, { type: 'send', id: 5, text: 'hi' }, how, readAfterMs);
      assert.deepEqual(types.filter((t) => t !== 'exit'), ['ready', 'output', 'ack5'], JSON.stringify(types));
    });
  }

  // The stop is done within a few hundred ms (measured): a second later the worker is ending, within its linger (2 s).
  it('a stop then a detach, read 1 s later (the stop done, the worker ending): `stopped` comes', async () => {
    const job = await ctx.sb.start(flood('trap "" TERM; '), { waitFor: ['running'] });
    const exec = (await ctx.sb.store.read(job.id)).execution!;
    const types = await requestBehindOutput(exec.socketPath, exec.socketToken, { type: 'stop', id: 6, force: false }, 'detach', 1000);
    assert.ok(types.includes('stopped6'), JSON.stringify(types));
  });
});
