/**
 * The figures of agents that ended, kept in one store file for one-shot
 * processes (each `paddock list`): the first sample after the end settled
 * takes them the usual way, later ones read that file instead of each agent's
 * cursor and output folder, while the worktree's size is still walked when
 * due. An end not yet settled, a record that ended again (retried), a cleanup
 * under way or done, a restore, a forgotten agent and a file that is bad each
 * lead back to the usual sampling. The hand-written check of the file gives
 * zod's answers.
 */
import * as assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sampleAndRecordUsage } from '../../../../src/core/operations/recordUsage';
import type { JobRecord, JobStore } from '../../../../src/core/store';
import { checkEndedFigures, END_SETTLED_MS, ENDED_FIGURES_FILE, EndedFigures, endedFiguresSchemas, settledEndOf } from '../../../../src/core/usage/endedFigures';
import { UsageSampler } from '../../../../src/core/usage/sampler';
import { claudeProjectDir } from '../../../../src/core/usage/transcripts';
import { createWithWorktree } from '../store/helpers';
import { claudeLine, MB, useUsageSandbox } from './usageSandbox';


describe('usage/endedFigures: the figures of ended agents in one file', function () {
  this.timeout(30_000);
  let store!: JobStore;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  useUsageSandbox('ended', (sb) => ({ store, dir, env } = sb));

  const filePath = () => join(store.home, ENDED_FIGURES_FILE);
  const readFile = () => JSON.parse(readFileSync(filePath(), 'utf8'));

  /** A sampler as a new `paddock list` process makes one (src/cli/support/usage.ts). */
  function oneShotSampler(diskIntervalMs?: number): UsageSampler {
    const endedFigures = new EndedFigures({ path: filePath(), jobExists: (id) => existsSync(store.jobDir(id)), blocking: true });
    return new UsageSampler({ outputDir: (id) => store.outputDir(id), cursorDir: (id) => store.jobDir(id), env, blocking: true, endedFigures, diskIntervalMs });
  }
  const sampleOnce = async (jobs: JobRecord[], diskIntervalMs?: number) => sampleAndRecordUsage(store, oneShotSampler(diskIntervalMs), jobs);

  /** A Claude Code agent with a worktree of its own, its transcript and output written, then ended. */
  async function endedClaudeAgent(): Promise<{ job: JobRecord; transcript: string; worktree: string }> {
    const created = await createWithWorktree(store, { command: ['claude'], repo: join(dir, 'repo') });
    const worktree = created.worktree!;
    mkdirSync(worktree, { recursive: true });
    writeFileSync(join(worktree, 'a.bin'), Buffer.alloc(MB, 1));
    const projects = claudeProjectDir(worktree, env);
    mkdirSync(projects, { recursive: true });
    const transcript = join(projects, 'session.jsonl');
    writeFileSync(transcript, claudeLine('m1', 100, 10) + claudeLine('m2', 200, 20));
    mkdirSync(store.outputDir(created.id), { recursive: true });
    writeFileSync(join(store.outputDir(created.id), '000000000001.seg'), 'x'.repeat(5000));
    const ended = await store.transition(created.id, 'cancelled');
    assert.ok(ended.lifecycle.endedAt, 'the record says when it ended');
    return { job: settledLongAgo(ended), transcript, worktree };
  }

  /** The record as it reads once its end is older than END_SETTLED_MS. */
  const settledLongAgo = (job: JobRecord): JobRecord => ({ ...job, lifecycle: { ...job.lifecycle, endedAt: new Date(Date.now() - END_SETTLED_MS - 60_000).toISOString() } });

  /** A segment of output written after the figures were kept (a worker's last bytes, a cleanup's teardown). */
  const writeMoreOutput = (job: JobRecord, bytes: number) => writeFileSync(join(store.outputDir(job.id), '000000000002.seg'), 'y'.repeat(bytes));

  it('after the first sample of an ended agent, its output and tokens come from the file, not its cursor or output folder', async () => {
    const { job, transcript } = await endedClaudeAgent();
    const first = (await sampleOnce([job])).get(job.id)!.usage!;
    assert.deepEqual([first.outputBytes, first.tokensIn, first.tokensOut], [5000, 300, 30]);
    const entry = readFile().agents[job.id];
    assert.equal(entry.end, settledEndOf(job, Date.now()));
    assert.deepEqual([entry.outputBytes, entry.tokensIn, entry.tokensOut], [5000, 300, 30]);

    // Neither is read again: with the output folder gone and the cursor unreadable, the figures stand.
    rmSync(store.outputDir(job.id), { recursive: true });
    writeFileSync(join(store.jobDir(job.id), 'usage-cursor.json'), '{ not json');
    appendFileSync(transcript, claudeLine('m3', 5000, 500));
    const later = (await sampleOnce([job])).get(job.id)!.usage!;
    assert.deepEqual([later.outputBytes, later.tokensIn, later.tokensOut, later.diskBytes], [5000, 300, 30, first.diskBytes]);
    assert.equal(later.cpuPercent, null);
    assert.equal(later.rssBytes, null);
  });

  it('the worktree of an ended agent is still walked when due, and the walk is kept in the file', async () => {
    const { job, worktree } = await endedClaudeAgent();
    const interval = 1500;
    const first = (await sampleOnce([job], interval)).get(job.id)!.usage!;
    const walkedAt = readFile().agents[job.id].disk.walkedAt;
    writeFileSync(join(worktree, 'b.bin'), Buffer.alloc(4 * MB, 1));
    const soon = (await sampleOnce([job], interval)).get(job.id)!.usage!;
    assert.equal(soon.diskBytes, first.diskBytes, 'walked less than an interval ago (by another process): not walked again');
    await new Promise((r) => setTimeout(r, interval + 100));
    const due = (await sampleOnce([job], interval)).get(job.id)!.usage!;
    assert.ok(due.diskBytes! >= first.diskBytes! + 4 * MB, `due: walked (${due.diskBytes} against ${first.diskBytes})`);
    assert.ok(readFile().agents[job.id].disk.walkedAt > walkedAt, 'the new walk is in the file');
  });

  it('an end not yet settled, one left running, a cleanup begun or done, a retry or a restore: sampled again', async () => {
    // Ended a moment ago: its worker may still write, so nothing is kept yet.
    const recent = await endedClaudeAgent();
    const justEnded = { ...recent.job, lifecycle: { ...recent.job.lifecycle, endedAt: new Date().toISOString() } };
    await sampleOnce([justEnded]);
    assert.equal(existsSync(filePath()) ? readFile().agents[recent.job.id] : undefined, undefined, 'no entry for an end that is not settled');
    writeMoreOutput(recent.job, 100);
    assert.equal((await sampleOnce([justEnded])).get(recent.job.id)!.usage!.outputBytes, 5100, 'read again');
    // What the worker left running may still write.
    const leftRunning = { ...recent.job, leftovers: [{ pid: 4242, command: 'node server.js' }] } as JobRecord;
    assert.equal(settledEndOf(leftRunning, Date.now()), null);

    const agents = await Promise.all([1, 2, 3, 4, 5].map(() => endedClaudeAgent()));
    const [retried, cleaning, cleaned, restored, forgotten] = agents.map((a) => a.job);
    await sampleOnce(agents.map((a) => a.job));
    assert.deepEqual(Object.keys(readFile().agents).sort(), agents.map((a) => a.job.id).sort());
    for (const job of [retried, cleaning, restored]) writeMoreOutput(job, 3000);

    const retriedAgain = { ...retried, lifecycle: { ...retried.lifecycle, generation: 2 } };
    const cleanupUnderWay = { ...cleaning, cleanup: { phase: 'terminating' } } as JobRecord;
    const cleanedUp = { ...cleaned, cleanup: { phase: 'complete' } } as JobRecord;
    const restoredAfterCleanup = { ...restored, evidence: { capturedAt: new Date().toISOString() } } as JobRecord;
    const sampled = await sampleOnce([retriedAgain, cleanupUnderWay, cleanedUp, restoredAfterCleanup]);
    assert.equal(sampled.get(retried.id)!.usage!.outputBytes, 8000, 'a later generation: read again');
    assert.equal(sampled.get(cleaning.id)!.usage!.outputBytes, 8000, 'a teardown may write: read again');
    assert.equal(sampled.get(restored.id)!.usage!.outputBytes, 8000, 'restored since: read again');
    const kept = readFile().agents;
    assert.equal(kept[retried.id].end, settledEndOf(retriedAgain, Date.now()), 'kept for the new end');
    assert.equal(kept[cleaning.id], undefined, 'the agent being cleaned up is dropped');
    assert.equal(kept[cleaned.id], undefined, 'the cleaned-up agent is dropped');
    assert.equal(kept[restored.id].end, settledEndOf(restoredAfterCleanup, Date.now()));
    assert.ok(kept[forgotten.id], 'an agent this sample was not given stays');

    // A command that samples one agent keeps the others' entries, unless their agent is gone.
    rmSync(store.jobDir(forgotten.id), { recursive: true });
    const late = await endedClaudeAgent();
    await sampleOnce([late.job]);
    assert.deepEqual(Object.keys(readFile().agents).sort(), [retried.id, restored.id, late.job.id].sort());
  });

  it('a bad file is ignored: the agents are sampled the usual way and the file written anew', async () => {
    const { job } = await endedClaudeAgent();
    await sampleOnce([job]);
    const valid = readFile();
    const entry = valid.agents[job.id];
    const bads = [
      '{"version":1,',
      JSON.stringify({ ...valid, version: 2 }),
      JSON.stringify({ version: 1, agents: { [job.id]: { ...entry, outputBytes: 1, end: '' } } }),
      JSON.stringify({ version: 1, agents: { [job.id]: { ...entry, outputBytes: -1 } } }),
      JSON.stringify({ version: 1, agents: { 'NOT AN ID': entry } }),
    ];
    for (const bad of bads) {
      writeFileSync(filePath(), bad);
      const usage = (await sampleOnce([job])).get(job.id)!.usage!;
      assert.equal(usage.outputBytes, 5000, `sampled the usual way with ${bad.slice(0, 60)}`);
      assert.equal(readFile().agents[job.id].outputBytes, 5000, 'and the file written again, valid');
    }
  });

  it('the hand-written check accepts only what zod accepts, and what it returns is what zod returns', () => {
    const entry = { end: '1 2026-12-05T10:00:00.000Z -', outputBytes: 6, tokensIn: 10, tokensOut: null, costUsd: 0.25, disk: { root: '/tmp/w', bytes: 4096, walkedAt: 1796468238292 } };
    const base = { version: 1, agents: { abc123def: entry, zzz999: { ...entry, disk: null, costUsd: null } } };
    const values: unknown[] = [null, undefined, -1, 0, 1.5, 2 ** 53, Infinity, NaN, '', 'x', 'x'.repeat(5000), true, [], {}];
    const mutants: unknown[] = [base, null, [], 'x', { version: 1 }, { version: 1, agents: [] }, { version: 1, agents: null }, { version: 1, agents: {} }];
    for (const key of Object.keys(entry)) {
      for (const value of values) {
        const changed: Record<string, unknown> = { ...entry, [key]: value };
        if (value === undefined) delete changed[key];
        mutants.push({ version: 1, agents: { abc123def: changed } });
      }
    }
    for (const key of Object.keys(entry.disk)) for (const value of values) mutants.push({ version: 1, agents: { abc123def: { ...entry, disk: { ...entry.disk, [key]: value } } } });
    for (const id of ['ABC123', 'abc', 'a'.repeat(13), '__proto__', 'abc-123']) mutants.push(JSON.parse(`{"version":1,"agents":{${JSON.stringify(id)}:${JSON.stringify(entry)}}}`));
    mutants.push({ ...base, version: 2 }, { ...base, more: 1 }, { version: 1, agents: { abc123def: { ...entry, more: 1 } } });

    const { EndedFiguresSchema } = endedFiguresSchemas();
    let accepted = 0;
    for (const mutant of mutants) {
      const input = JSON.parse(JSON.stringify(mutant ?? null));
      const zod = EndedFiguresSchema.safeParse(input);
      const fast = checkEndedFigures(input);
      if (fast !== undefined) {
        accepted++;
        assert.ok(zod.success, `the fast check accepted what zod refuses: ${JSON.stringify(input).slice(0, 200)}`);
        assert.deepEqual(fast, zod.data);
      } else if (zod.success) {
        // zod drops what it does not know (a key, an own `__proto__`); the fast check leaves those cases to zod.
        assert.notDeepStrictEqual(zod.data, input, `the fast check refused what zod accepts as it is: ${JSON.stringify(input).slice(0, 200)}`);
      }
    }
    assert.ok(accepted >= 5, `the mutants include valid files (${accepted})`);
  });
});
