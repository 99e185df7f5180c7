import * as assert from 'node:assert/strict';
import { ExecutionRecord } from '../../../../src/core/worker/executionRecord';
import { Sandbox, sleep } from './fixtures';
import { socketPathFor } from '../../../../src/core/protocol/runtimeDir';

/** The record's pending activity timer (none while the agent is quiet). */
function activityTimer(record: ExecutionRecord): unknown {
  return (record as unknown as { activityTimer?: unknown }).activityTimer;
}

describe('ExecutionRecord', () => {
  let sandbox: Sandbox;
  beforeEach(() => (sandbox = new Sandbox()));
  afterEach(() => sandbox.dispose());

  async function claimed() {
    const job = await sandbox.store.create({
      title: 'record',
      repo: sandbox.cwd,
      worktree: null,
      branch: null,
      base: null,
      baseSha: null,
      profile: null,
      command: ['true'],
      cwd: sandbox.cwd,
      envNames: [],
      settings: { stopGraceMs: 3000, waitingPattern: null, idleSeconds: null, resumeArgs: null, secretEnvNames: [], autoRestart: false, recoveryLimit: 0 },
    });
    const claim = await sandbox.store.claimExecution(job.id, { generation: 1, socketPath: socketPathFor(job.id, 1), socketToken: 't'.repeat(20) });
    return { id: job.id, claim };
  }

  it('arms no timer while quiet; activity arms one write, after which it is quiet again', async () => {
    const { id, claim } = await claimed();
    const record = new ExecutionRecord(sandbox.store, id, claim.fence, 'starting', () => undefined, 100);
    try {
      await record.transition('running', { pid: process.pid });
      const atStart = (await sandbox.store.read(id)).lifecycle.lastActivityAt;
      assert.ok(atStart);
      await sleep(250);
      assert.equal(activityTimer(record), undefined, 'a quiet agent leaves no timer');
      assert.equal((await sandbox.store.read(id)).lifecycle.lastActivityAt, atStart, 'nothing is written while quiet');

      await sleep(5); // a later time than the start
      record.noteActivity();
      record.noteActivity(); // many notes, one timer, one write
      assert.ok(activityTimer(record), 'activity arms the write');
      await sleep(300);
      await record.settled();
      const written = (await sandbox.store.read(id)).lifecycle.lastActivityAt;
      assert.ok(written && written > atStart, `activity time written (${written} after ${atStart})`);
      assert.equal(activityTimer(record), undefined, 'quiet again after the write');
    } finally {
      record.dispose();
      await claim.release();
    }
  });

  it("the agent's own signal after the pattern's guess rewrites why it waits; a guess after the signal does not", async () => {
    const { id, claim } = await claimed();
    const record = new ExecutionRecord(sandbox.store, id, claim.fence, 'starting', () => undefined, 10_000);
    const waitFor = async (reason: string) => {
      for (let i = 0; i < 60; i++) {
        await record.settled();
        const lifecycle = (await sandbox.store.read(id)).lifecycle;
        if (lifecycle.waitingReason === reason) return lifecycle;
        await sleep(100);
      }
      assert.fail(`the record never said waiting (${reason})`);
    };
    try {
      await record.transition('running', { pid: process.pid });
      // The screen's pattern matched first (a busy machine), then the agent's `paddock signal waiting` came.
      record.setWaiting('pattern');
      assert.equal((await waitFor('pattern')).state, 'waiting');
      record.setWaiting('signal');
      const after = await waitFor('signal');
      assert.equal(after.state, 'waiting');
      assert.equal(after.detail, 'waiting (signal)');
    } finally {
      record.dispose();
      await claim.release();
    }
  });

  it('a state write carries the activity time: the pending activity write is dropped', async () => {
    const { id, claim } = await claimed();
    const record = new ExecutionRecord(sandbox.store, id, claim.fence, 'starting', () => undefined, 10_000);
    try {
      record.noteActivity();
      assert.ok(activityTimer(record));
      await record.transition('running', { pid: process.pid });
      assert.equal(activityTimer(record), undefined);
    } finally {
      record.dispose();
      await claim.release();
    }
  });
});
