/**
 * The CLI bundle when its output cannot be written: a reader that went away is not a failure (no
 * stack trace, status 0); a full disk is (one sentence, status 1). And numbers given to options
 * are numbers: `prune --older-than "$DAYS"` with DAYS unset must not forget every cleaned agent.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { assertOneSentence, CoordinatorSandbox, runCli, useCoordinatorSandbox } from '../core/coordinator/coordinatorFixture';
import { CLI_SCRIPT } from '../core/coordinator/coordinatorFixture';

describe('CLI: output that cannot be written, numbers that are not numbers', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  const cli = (args: string[]) => runCli(args, { cwd: sb.repo, env: sb.env });

  it('logs --follow into a pipe its reader closed ends quietly, with status 0', async () => {
    const started = await cli(['start', '--', 'sh', '-c', 'while true; do echo printing; sleep 0.02; done']);
    assert.equal(started.code, 0, started.stderr);
    const id = started.stdout.trim();
    try {
      const follow = spawn(process.execPath, [CLI_SCRIPT, 'logs', id, '--follow'], { cwd: sb.repo, env: sb.env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      follow.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => follow.on('close', (code) => resolve(code)));
      // Like `| head -1`: read the first output, then close the pipe while the agent keeps printing.
      await new Promise<void>((resolve) => follow.stdout.once('data', () => resolve()));
      follow.stdout.destroy();
      const code = await Promise.race([exited, new Promise<'still running'>((r) => setTimeout(() => r('still running'), 15_000))]);
      if (code === 'still running') follow.kill('SIGKILL');
      assert.equal(stderr, '', 'nothing on stderr (it was a stack trace)');
      assert.equal(code, 0);
    } finally {
      await cli(['stop', id]);
    }
  });

  const intoFullDisk = (args: string) =>
    new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn('sh', ['-c', `exec "${process.execPath}" "${CLI_SCRIPT}" ${args} > /dev/full`], { cwd: sb.repo, env: sb.env, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (code) => resolve({ code, stderr }));
    });

  it('a full disk under stdout is a failure said in one sentence, status 1', async function () {
    if (!existsSync('/dev/full')) return this.skip();
    const run = await intoFullDisk('list --json');
    assert.equal(run.code, 1, 'the output was lost: not done');
    assertOneSentence(run.stderr);
    // Bug 112: Node's errno text ("ENOSPC: no space left on device, write") reached the person.
    assert.equal(run.stderr, 'paddock list: could not write the output: the disk is full.\n');
  });

  // The command's own failure was said, then the flush of an empty stdout said a second one.
  it('a command that failed says so once, with its own status, when stdout is a full disk too', async function () {
    if (!existsSync('/dev/full')) return this.skip();
    const run = await intoFullDisk('show abcdef12');
    assert.equal(run.stderr, 'paddock show: No agent abcdef12 exists.\n');
    assert.equal(run.code, 2);
  });

  it('refuses an empty, blank, hexadecimal or signed number of days or MB (exit 2), and forgets nothing', async () => {
    const started = await cli(['start', '--', 'true']);
    const id = started.stdout.trim();
    await sb.waitEnded(id);
    assert.equal((await cli(['cleanup', id, '--yes'])).code, 0);
    for (const days of ['', ' ', '0x10', '1e3', '-1', ' 3 ', 'Infinity']) {
      const prune = await cli(['prune', `--older-than=${days}`, '--yes']);
      assert.equal(prune.code, 2, `--older-than '${days}': ${prune.stderr}`);
      assertOneSentence(prune.stderr);
    }
    for (const mb of ['', '0x10', '-5']) {
      const cleanup = await cli(['cleanup', id, `--archive-limit=${mb}`, '--yes']);
      assert.equal(cleanup.code, 2, `--archive-limit '${mb}': ${cleanup.stderr}`);
    }
    const listed = JSON.parse((await cli(['list', '--json'])).stdout) as { id: string }[];
    assert.deepEqual(listed.map((j) => j.id), [id], 'the cleaned agent is still listed');
    const kept = await cli(['prune', '--older-than', '1.5', '--yes']);
    assert.equal(kept.code, 0, kept.stderr);
    assert.match(kept.stdout, /No cleaned-up agent to remove/);
  });
});
