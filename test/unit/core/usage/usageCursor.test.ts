/**
 * One-shot processes (each `paddock list`) go on where the previous one
 * stopped, through the agent's cursor file: a transcript is never read whole
 * again, the worktree is walked at most once per interval across processes
 * (also when nothing moved enough to be recorded), and a bad cursor is
 * ignored and rebuilt. Each sampler here is a fresh one, as in a new process.
 */
import * as assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sampleAndRecordUsage } from '../../../../src/core/operations/recordUsage';
import type { JobRecord, JobStore } from '../../../../src/core/store';
import { UsageSampler } from '../../../../src/core/usage/sampler';
import { claudeProjectDir } from '../../../../src/core/usage/transcripts';
import { USAGE_CURSOR_FILE } from '../../../../src/core/usage/usageCursor';
import { createWithWorktree } from '../store/helpers';
import { claudeLine, MB, useUsageSandbox } from './usageSandbox';


describe('usage/usageCursor: incremental across processes', function () {
  this.timeout(30_000);
  let store!: JobStore;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  useUsageSandbox('cursor', (sb) => ({ store, dir, env } = sb));

  /** An ended Claude Code agent with a worktree of its own, and its transcript's path. */
  async function claudeAgent(): Promise<{ job: JobRecord; transcript: string; worktree: string }> {
    const job = await createWithWorktree(store, { command: ['claude'], repo: join(dir, 'repo') });
    const worktree = job.worktree!;
    mkdirSync(worktree, { recursive: true });
    const projects = claudeProjectDir(worktree, env);
    mkdirSync(projects, { recursive: true });
    return { job, worktree, transcript: join(projects, 'session.jsonl') };
  }

  const freshSampler = (diskIntervalMs?: number) => new UsageSampler({ outputDir: (id) => store.outputDir(id), cursorDir: (id) => store.jobDir(id), env, diskIntervalMs });
  const sampleOnce = async (job: JobRecord, diskIntervalMs?: number) => (await sampleAndRecordUsage(store, freshSampler(diskIntervalMs), [job])).get(job.id)!.usage!;

  it('a later process reads only what was appended: the bytes before the cursor are not read again', async () => {
    const { job, transcript } = await claudeAgent();
    writeFileSync(transcript, claudeLine('m1', 111, 11) + claudeLine('m2', 222, 22));
    assert.deepEqual([(await sampleOnce(job)).tokensIn, (await sampleOnce(job)).tokensOut], [333, 33]);
    const cursor = JSON.parse(readFileSync(join(store.jobDir(job.id), USAGE_CURSOR_FILE), 'utf8'));
    assert.equal(cursor.transcripts[0].position.offset, statSync(transcript).size, 'the cursor stands at the end of the last line');
    // m2's figures changed in place (same length, same first bytes): a process that read the file whole would see them.
    writeFileSync(transcript, readFileSync(transcript, 'utf8').replace('222', '999'));
    appendFileSync(transcript, claudeLine('m3', 1000, 100));
    const usage = await sampleOnce(job);
    assert.equal(usage.tokensIn, 1333, 'the earlier lines from the cursor, the appended one read');
    assert.equal(usage.tokensOut, 133);
  });

  it('a bad cursor is ignored and rebuilt by reading from the start', async () => {
    const { job, transcript } = await claudeAgent();
    writeFileSync(transcript, claudeLine('m1', 5, 1));
    await sampleOnce(job);
    const file = join(store.jobDir(job.id), USAGE_CURSOR_FILE);
    const valid = JSON.parse(readFileSync(file, 'utf8'));
    for (const bad of ['{"version":1,', JSON.stringify({ ...valid, transcripts: [{ ...valid.transcripts[0], position: { ...valid.transcripts[0].position, offset: -1 } }] }), JSON.stringify({ ...valid, version: 99 }), JSON.stringify({ ...valid, transcripts: [{ ...valid.transcripts[0], messages: '5\t-1\t\tm1\n' }] })]) {
      writeFileSync(file, bad);
      appendFileSync(transcript, claudeLine(`n${Math.random()}`, 1, 1));
      const usage = await sampleOnce(job);
      const expected = readFileSync(transcript, 'utf8').trim().split('\n').length;
      assert.equal(usage.tokensIn, 5 + expected - 1, `read from the start with cursor ${bad.slice(0, 40)}`);
      assert.equal(JSON.parse(readFileSync(file, 'utf8')).version, 1, 'and written again, valid');
    }
  });

  it('the worktree is walked at most once per interval across processes, also when no figure was recorded', async () => {
    const { job, worktree } = await claudeAgent();
    writeFileSync(join(worktree, 'a.bin'), Buffer.alloc(MB, 1));
    const interval = 1500;
    const first = await sampleOnce(job, interval);
    await new Promise((r) => setTimeout(r, interval + 100));
    // Due: walked again; nothing moved, so nothing is recorded and the record's sampledAt stays old.
    const second = await sampleOnce(job, interval);
    assert.equal(second.diskBytes, first.diskBytes);
    writeFileSync(join(worktree, 'b.bin'), Buffer.alloc(4 * MB, 1));
    const third = await sampleOnce(job, interval);
    assert.equal(third.diskBytes, first.diskBytes, 'walked by the previous process less than an interval ago: not walked again');
    await new Promise((r) => setTimeout(r, interval + 100));
    assert.ok((await sampleOnce(job, interval)).diskBytes! >= first.diskBytes! + 4 * MB, 'due again: walked');
  });
});
