/**
 * Commands that stream (logs --follow, attach --read-only, coordinate) end when the reader of their
 * output goes away, at once and quietly, not at their next write: an agent that prints nothing for
 * an hour kept `paddock logs ID --follow | head -1` running for that hour (bug 125). And a log that
 * cannot be written (stderr into a closed pipe, a full disk) no longer ends the CLI with a stack
 * trace mid-operation.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { leaderLock } from '../../../src/core/scheduler/leadership';
import { CLI_SCRIPT, CoordinatorSandbox, runCli, useCoordinatorSandbox } from '../core/coordinator/coordinatorFixture';

/** Long next to the few seconds these end in: a run still going then waits for output that never comes. */
const PROMPTLY_MS = 8_000;

describe('CLI: a reader that went away ends a streaming command at once (bug 125)', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  const cli = (args: string[]) => runCli(args, { cwd: sb.repo, env: sb.env });
  const paddock = `"${process.execPath}" "${CLI_SCRIPT}"`;

  /** An agent that prints one line and then nothing for a minute. */
  async function quietAgent(): Promise<string> {
    const started = await cli(['start', '--', 'sh', '-c', 'echo first-line; sleep 60']);
    assert.equal(started.code, 0, started.stderr);
    const id = started.stdout.trim();
    await waitFor(async () => (await cli(['logs', id])).stdout.includes('first-line'));
    return id;
  }

  /**
   * Runs a bash pipeline; resolves with the status of its first command (PIPESTATUS) and its stderr
   * (its own stderr goes to fd 3 when `2>&3`), or 'still running' past PROMPTLY_MS.
   */
  function pipeline(script: string): Promise<{ code: number | 'still running'; stderr: string }> {
    const child = spawn('bash', ['-c', `${script}; exit \${PIPESTATUS[0]}`], { cwd: sb.repo, env: sb.env, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        killGroup(child.pid!);
        resolve({ code: 'still running', stderr });
      }, PROMPTLY_MS);
      child.on('close', (code) => {
        clearTimeout(timer);
        killGroup(child.pid!); // what the pipeline left behind (a stdin kept open)
        resolve({ code: code ?? -1, stderr });
      });
    });
  }

  it('logs --follow of a quiet agent into a pipe ends when its reader does (`| head -c 5`), status 0', async () => {
    const id = await quietAgent();
    try {
      const run = await pipeline(`${paddock} logs ${id} --follow | head -c 5 >/dev/null`);
      assert.deepEqual(run, { code: 0, stderr: '' });
    } finally {
      await cli(['stop', id]);
    }
  });

  it('attach --read-only into a socket detaches when its reader closes it, status 0; the agent keeps running', async () => {
    const id = await quietAgent();
    try {
      // Node's spawn gives its children socket pairs, not pipes; stdin stays open (its end would detach).
      const attach = spawn(process.execPath, [CLI_SCRIPT, 'attach', id, '--read-only'], { cwd: sb.repo, env: sb.env, stdio: ['pipe', 'pipe', 'pipe'] });
      let stderr = '';
      attach.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => attach.on('close', (code) => resolve(code)));
      await new Promise<void>((resolve) => attach.stdout.once('data', () => resolve()));
      attach.stdout.destroy();
      const code = await Promise.race([exited, new Promise<'still running'>((r) => setTimeout(() => r('still running'), PROMPTLY_MS))]);
      if (code === 'still running') attach.kill('SIGKILL');
      assert.equal(code, 0, stderr);
      assert.equal(stderr, '');
      assert.equal((await sb.store.read(id)).lifecycle.state, 'running');
    } finally {
      await cli(['stop', id]);
    }
  });

  it('attach --read-only into a pipe detaches when its reader goes away; the agent keeps running', async () => {
    const id = await quietAgent();
    try {
      const run = await pipeline(`${paddock} attach ${id} --read-only < <(exec sleep 30 2>/dev/null) | head -c 5 >/dev/null`);
      assert.deepEqual(run, { code: 0, stderr: '' });
      assert.equal((await sb.store.read(id)).lifecycle.state, 'running');
    } finally {
      await cli(['stop', id]);
    }
  });

  it('coordinate stops as on a closed terminal when the reader of its log goes away, and gives up the lease', async () => {
    // Its log said one line, then nothing: it ran on. With a second line the write failed (EPIPE) and
    // the unheard error ended it at once with a stack trace, status 1, leading still.
    const run = await pipeline(`${paddock} coordinate 2>&1 >/dev/null | head -n 1 >/dev/null`);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(await leaderLock(sb.home).owner(), undefined, 'no coordinator leads');
  });

  it('coordinate --until-idle with its log on a full disk coordinates on and ends with status 0', async function () {
    if (!existsSync('/dev/full')) return this.skip();
    const run = await pipeline(`${paddock} coordinate --until-idle 2>/dev/full`);
    assert.equal(run.code, 0, 'the unwritable log ended it with status 1');
  });
});

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // none left
  }
}

async function waitFor(ok: () => Promise<boolean>): Promise<void> {
  const until = Date.now() + 20_000;
  while (!(await ok())) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}
