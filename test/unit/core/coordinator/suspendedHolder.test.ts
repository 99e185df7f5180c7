/**
 * Bug 109: a lock held by a suspended process (SIGSTOP; a person's Ctrl-Z on a `paddock` command).
 * Its holder is alive, so the lock is rightly not taken from it, but a waiter sat out its whole wait
 * (two minutes for an agent's operation lock: `paddock stop` hung that long) and then said only that
 * it timed out. Now it says within seconds who holds it and that `kill -CONT` resumes it; a holder
 * stopped only for a moment is waited for as before. /proc and the portable backend.
 */
import * as assert from 'node:assert/strict';
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { OwnedLock } from '../../../../src/core/coordinator/ownedLock';
import { CoordinatorSandbox, runCli, useCoordinatorSandbox } from './coordinatorFixture';
import { useProcessBackend } from '../proc/processBackend';

const OWNED_LOCK = require.resolve('../../../../src/core/coordinator/ownedLock');

/** A child that takes `lockDir` as Paddock does and holds it until it reads a line, then releases it and exits. */
async function holderChild(lockDir: string, purpose: string): Promise<ChildProcess> {
  const script = `
    const { OwnedLock } = require(${JSON.stringify(OWNED_LOCK)});
    new OwnedLock(${JSON.stringify(lockDir)}, ${JSON.stringify(purpose)}).acquire(5000).then((held) => {
      process.stdout.write('held\\n');
      process.stdin.once('data', () => held.release().then(() => process.exit(0)));
    });
  `;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
  return child;
}

function ended(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function kill(child: ChildProcess): Promise<void> {
  child.kill('SIGCONT');
  child.kill('SIGKILL');
  await ended(child);
}

for (const backend of ['proc', 'portable'] as const) {
  describe(`a lock whose holder is suspended, ${backend} backend`, function () {
    this.timeout(60_000);
    let dir: string;
    const children: ChildProcess[] = [];
    useProcessBackend(backend);
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'paddock-suspended-'));
    });
    afterEach(async () => {
      for (const child of children.splice(0)) await kill(child);
      rmSync(dir, { recursive: true, force: true });
    });

    it('a waiter says within seconds who holds it and how to resume it, and the lock is untouched', async () => {
      const lockDir = join(dir, 'x.lock');
      const child = await holderChild(lockDir, 'cleanup of abc');
      children.push(child);
      child.kill('SIGSTOP');
      const began = Date.now();
      await assert.rejects(
        new OwnedLock(lockDir, 'me').acquire(30_000, { sayWhenSuspended: true }),
        new RegExp(`^PaddockError: The lock x\\.lock is held by pid ${child.pid} \\(cleanup of abc\\), which is suspended \\(SIGSTOP\\) and cannot let it go until it is resumed: kill -CONT ${child.pid} resumes it\\.$`),
      );
      assert.ok(Date.now() - began < 5000, `answered after ${Date.now() - began} ms`);
      assert.equal((await new OwnedLock(lockDir, 'me').owner())?.pid, child.pid, 'still its lock');
      child.kill('SIGCONT');
      child.stdin!.write('go\n');
      await ended(child);
      const held = await new OwnedLock(lockDir, 'me').acquire(5000);
      await held.release();
    });

    it('a holder stopped only for a moment is waited for, and the lock is taken once it lets go', async () => {
      const lockDir = join(dir, 'y.lock');
      const child = await holderChild(lockDir, 'stop of abc');
      children.push(child);
      child.kill('SIGSTOP');
      const waiting = new OwnedLock(lockDir, 'me').acquire(30_000, { sayWhenSuspended: true });
      await sleep(500);
      child.kill('SIGCONT');
      child.stdin!.write('go\n');
      const held = await waiting;
      await held.release();
    });
  });
}

describe('CLI: stop while another process holding the agent\'s operation lock is suspended', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  it('says at once who holds it and how to resume it; once resumed, stop works', async () => {
    const cli = (args: string[]) => runCli(args, { cwd: sb.repo, env: sb.env, input: '' });
    const started = await cli(['start', '--json', '--', 'sh', '-c', 'sleep 600']);
    assert.equal(started.code, 0, started.stderr);
    const { id } = JSON.parse(started.stdout) as { id: string };
    await sb.waitForState(id, ['running']);
    const holder = await holderChild(join(sb.home, 'coordinator', 'ops', `${id}.lock`), `operation on ${id}`);
    try {
      holder.kill('SIGSTOP');
      const began = Date.now();
      const stopped = await cli(['stop', id]);
      assert.equal(stopped.code, 1);
      assert.equal(
        stopped.stderr,
        `paddock stop: Could not stop agent ${id}: The lock ${id}.lock is held by pid ${holder.pid} (operation on ${id}), which is suspended (SIGSTOP) and cannot let it go until it is resumed: kill -CONT ${holder.pid} resumes it.\n`,
      );
      assert.ok(Date.now() - began < 10_000, `answered after ${Date.now() - began} ms`);
      holder.kill('SIGCONT');
      holder.stdin!.write('go\n');
      await ended(holder);
    } finally {
      await kill(holder);
    }
    const again = await cli(['stop', id]);
    assert.equal(again.code, 0, again.stderr);
    assert.equal((await sb.store.read(id)).lifecycle.state, 'cancelled');
  });
});
