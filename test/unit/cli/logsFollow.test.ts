/**
 * `paddock logs --follow` ends with the agent: status 0 when its log is whole (the agent ended,
 * even with a failure), one sentence and status 1 when the worker that recorded it died.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { assertOneSentence, CLI_SCRIPT, CoordinatorSandbox, runCli, useCoordinatorSandbox } from '../core/coordinator/coordinatorFixture';
import { waitUntil } from '../core/worker/fixtures';

describe('CLI: logs --follow until the agent or its worker ends', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  const cli = (args: string[]) => runCli(args, { cwd: sb.repo, env: sb.env });

  async function startAgent(script: string): Promise<string> {
    const started = await cli(['start', '--', 'sh', '-c', script]);
    assert.equal(started.code, 0, started.stderr);
    return started.stdout.trim();
  }

  function follow(id: string): { stdout: () => string; done: Promise<{ code: number | null; stderr: string }> } {
    const child = spawn(process.execPath, [CLI_SCRIPT, 'logs', id, '--follow'], { cwd: sb.repo, env: sb.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const done = new Promise<{ code: number | null; stderr: string }>((resolve) => child.on('close', (code) => resolve({ code, stderr })));
    return { stdout: () => stdout, done };
  }

  it('says the log ends where the killed worker stopped recording, and fails (status 1)', async () => {
    const id = await startAgent('while true; do echo tick; sleep 0.1; done');
    try {
      const f = follow(id);
      await waitUntil('output followed', () => f.stdout().includes('tick'));
      const workerPid = (await sb.store.read(id)).lifecycle.workerPid;
      assert.ok(workerPid, 'a worker runs the agent');
      process.kill(workerPid, 'SIGKILL');
      const { code, stderr } = await f.done;
      assertOneSentence(stderr);
      assert.equal(stderr, `paddock logs: Agent ${id}'s worker is gone (orphaned); its log ends here.\n`);
      assert.equal(code, 1);
    } finally {
      await cli(['stop', id]);
    }
  });

  it('ends quietly with status 0 when the agent ends, even with a failure', async () => {
    const id = await startAgent('sleep 0.5; echo last-words; exit 3');
    const f = follow(id);
    const { code, stderr } = await f.done;
    assert.equal(stderr, '');
    assert.equal(code, 0);
    assert.match(f.stdout(), /last-words/);
    assert.equal((await sb.store.read(id)).lifecycle.state, 'failed');
  });

  // Found by reading: each look re-read the whole log (up to its 8 MiB cap) and found its place again by
  // the last 4 KiB it had printed. Once the oldest segment was dropped, output that repeats itself (a
  // progress line, a spinner) matched further on: what came in between was never printed.
  it('prints every byte once, in order, across the log dropping its oldest segments, when the output repeats itself', async () => {
    // 12.5 MB in 50 paced bursts of the same line: the 8 MiB log drops its oldest segments as it goes.
    const id = await startAgent('sleep 1; echo BEGIN; for i in $(seq 50); do yes abc | head -n 50000; sleep 0.05; done; echo END');
    const f = follow(id);
    const { code, stderr } = await f.done;
    assert.equal(stderr, '');
    assert.equal(code, 0);
    const out = f.stdout();
    assert.ok(out.startsWith('BEGIN\r\n'), JSON.stringify(out.slice(0, 40)));
    assert.ok(out.endsWith('END\r\n'), JSON.stringify(out.slice(-40)));
    const body = out.slice('BEGIN\r\n'.length, out.length - 'END\r\n'.length);
    assert.equal(body.length, 50 * 50_000 * 'abc\r\n'.length, 'bytes printed between BEGIN and END');
    assert.equal(body, 'abc\r\n'.repeat(50 * 50_000));
  });
});
