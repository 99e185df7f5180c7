/**
 * `paddock show` and `paddock list` for people (src/cli/support/format.ts): records written
 * through the real store, read back by the real commands, one branch of the format per case.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { listCommand } from '../../../../src/cli/commands/list';
import { showCommand } from '../../../../src/cli/commands/show';
import { bootId, readProcStat } from '../../../../src/core/proc';
import type { JobStore } from '../../../../src/core/store';
import type { Cleanup, JobRecord } from '../../../../src/core/store/schema';
import { createWithWorktree, sampleJob, TestBed, useTestBed, withWindowOpen } from '../../core/store/helpers';
import { runCli } from '../../core/worker/fixtures';
import { socketPathFor } from '../../../../src/core/protocol/runtimeDir';

/** The `key: value` lines of `show`, as a map (keys are unique except "held by"). */
function fields(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of text.trimEnd().split('\n')) {
    const m = /^([a-z ()]+):\s+(.*)$/.exec(line);
    assert.ok(m, `every line of show is "key: value": ${JSON.stringify(line)}`);
    out.set(m[1], [...(out.get(m[1]) ?? []), m[2]]);
  }
  return out;
}

function cleanupOf(overrides: Partial<Cleanup>): Cleanup {
  const now = new Date().toISOString();
  return {
    phase: 'incomplete', remaining: ['worktree', 'branch'], stage: 'removing', failures: 5, nextAttemptAt: now,
    lastError: 'the worktree is in use by pid 4242', needsAttention: true, holders: [{ pid: 4242, command: 'vim notes.md' }],
    deleteBranch: false, fingerprint: null, branchOutcome: null, requestedAt: now, updatedAt: now,
    ...overrides,
  };
}

describe('paddock show and list in human format', () => {
  let home = '';
  let store!: JobStore;
  useTestBed((bed: TestBed, fresh) => {
    home = bed.home;
    store = fresh;
  });

  async function show(id: string): Promise<string> {
    const r = await withWindowOpen(home, () => runCli(showCommand, [id], { PADDOCK_HOME: home }));
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    return r.stdout;
  }

  /**
   * A record in the given state, written as a worker or cleanup would leave it on disk (the store's
   * operations would need a live worker to reach most of these states); `show` reads and validates it.
   */
  async function recordWith(change: (j: JobRecord) => JobRecord): Promise<JobRecord> {
    const job = await createWithWorktree(store, { title: 'fix the tests', baseSha: 'a'.repeat(40) });
    const file = path.join(store.jobDir(job.id), 'job.json');
    fs.writeFileSync(file, JSON.stringify(change(JSON.parse(fs.readFileSync(file, 'utf8')) as JobRecord)));
    return store.read(job.id);
  }

  it('a new agent: the facts it has, none of the empty ones, base with its short sha', async () => {
    const job = await recordWith((j) => j);
    const f = fields(await show(job.id));
    assert.deepEqual(f.get('id'), [job.id]);
    assert.deepEqual(f.get('state'), [job.lifecycle.state]);
    assert.deepEqual(f.get('base'), [`main (${'a'.repeat(12)})`]);
    assert.deepEqual(f.get('command'), ['bash -lc echo hi']);
    for (const absent of ['detail', 'exit code', 'signal', 'agent pid', 'cleanup', 'snapshot', 'held by']) assert.ok(!f.has(absent), `no "${absent}" line for a new agent`);
  });

  it('waiting: the state says why it waits', async () => {
    // A live state needs a live owner (one that names none reads orphaned): this process stands in for the worker.
    const self = readProcStat(process.pid)!;
    const execution = { ownerToken: 'x'.repeat(32), generation: 1, pid: process.pid, startTime: self.startTime, bootId: bootId(), socketToken: 'y'.repeat(32), claimedAt: new Date().toISOString() };
    const job = await recordWith((j) => ({ ...j, execution: { ...execution, generation: j.lifecycle.generation, socketPath: socketPathFor(j.id, j.lifecycle.generation) }, lifecycle: { ...j.lifecycle, state: 'waiting', waitingReason: 'signal' } }));
    assert.deepEqual(fields(await show(job.id)).get('state'), ['waiting (signal)']);
  });

  it('failed with its detail and exit code; text the agent wrote cannot fake a line', async () => {
    const job = await recordWith((j) => ({
      ...j,
      title: 'evil\nstate:         completed',
      lifecycle: { ...j.lifecycle, state: 'failed', exitCode: 3, detail: 'exit 3: eslint found\x1b[31m 3 errors', endedAt: '2026-01-02T03:04:05.000Z' },
    }));
    const out = await show(job.id);
    const f = fields(out);
    assert.deepEqual(f.get('state'), ['failed']);
    assert.deepEqual(f.get('exit code'), ['3']);
    assert.equal(f.get('detail')?.length, 1);
    assert.match(f.get('detail')![0], /^exit 3: eslint found.*3 errors$/);
    assert.doesNotMatch(out, /\x1b/, 'no escape sequence reaches the terminal'); // eslint-disable-line no-control-regex
    assert.deepEqual(f.get('state'), ['failed'], 'the title\'s newline did not add a second state line');
    assert.deepEqual(f.get('ended'), ['2026-01-02T03:04:05.000Z']);
  });

  it('a check made before the agent\'s last run ended says it is out of date, never ✓ for work nobody checked', async () => {
    const ended = '2026-01-02T03:04:05.000Z';
    const check = { state: 'passed' as const, exitCode: 0, durationMs: 1000, summary: 'ok', runner: null };
    const stale = await recordWith((j) => ({ ...j, lifecycle: { ...j.lifecycle, state: 'completed', exitCode: 0, endedAt: ended }, check: { ...check, at: '2026-01-02T03:04:00.000Z' } }));
    assert.deepEqual(fields(await show(stale.id)).get('check'), ['check out of date (it passed before the last run): ok']);
    const current = await recordWith((j) => ({ ...j, lifecycle: { ...j.lifecycle, state: 'completed', exitCode: 0, endedAt: ended }, check: { ...check, at: '2026-01-02T03:04:09.000Z' } }));
    assert.deepEqual(fields(await show(current.id)).get('check'), ['✓ check 1 s: ok']);
  });

  it('cleanup incomplete: stage, error, failures, next attempt, attention and each holder', async () => {
    const job = await recordWith((j) => ({ ...j, lifecycle: { ...j.lifecycle, state: 'completed', exitCode: 0 }, cleanup: cleanupOf({ holders: [{ pid: 4242, command: 'vim notes.md' }, { pid: 4343, command: 'bash' }] }) }));
    const f = fields(await show(job.id));
    assert.deepEqual(f.get('cleanup'), ['incomplete (remaining: worktree, branch)']);
    assert.deepEqual(f.get('failed stage'), ['removing']);
    assert.deepEqual(f.get('last error'), ['the worktree is in use by pid 4242']);
    assert.deepEqual(f.get('failures'), ['5']);
    assert.deepEqual(f.get('next attempt'), [job.cleanup!.nextAttemptAt]);
    assert.deepEqual(f.get('attention'), ['cleanup keeps failing; see the last error']);
    assert.deepEqual(f.get('held by'), ['pid 4242 (vim notes.md)', 'pid 4343 (bash)']);
  });

  it('cleanup complete: no failure lines, the branch outcome and the evidence summary', async () => {
    const job = await recordWith((j) => ({
      ...j,
      lifecycle: { ...j.lifecycle, state: 'completed', exitCode: 0 },
      cleanup: cleanupOf({ phase: 'complete', remaining: [], stage: null, failures: 0, lastError: null, needsAttention: false, holders: [], nextAttemptAt: null, branchOutcome: 'kept' }),
      evidence: {
        patch: '/store/jobs/x/evidence.patch',
        snapshotRef: `refs/paddock/snapshots/${j.id}`,
        headSha: 'b'.repeat(40),
        capturedAt: new Date().toISOString(),
        archive: '/store/jobs/x/untracked.tar',
        summary: {
          captured: { files: 7, bytes: 700 },
          archived: { files: 2, bytes: 3 * 1024 * 1024 },
          emptyDirs: 1,
          regenerable: { files: 40, bytes: 2048, roots: ['node_modules', 'dist'] },
          lost: [{ path: 'big.bin', bytes: 5000, why: 'too-big' }, { path: 'secret', bytes: 0, why: 'unreadable' }],
          lostCount: 2,
          nested: ['vendor/lib'],
          keptCommits: 3,
        },
      },
    } as JobRecord));
    const f = fields(await show(job.id));
    assert.deepEqual(f.get('cleanup'), ['complete']);
    for (const absent of ['failed stage', 'last error', 'failures', 'next attempt', 'attention', 'held by']) assert.ok(!f.has(absent), `no "${absent}" line once cleaned`);
    assert.deepEqual(f.get('snapshot'), [`refs/paddock/snapshots/${job.id}`]);
    assert.deepEqual(f.get('patch'), ['/store/jobs/x/evidence.patch']);
    assert.deepEqual(f.get('archive'), ['/store/jobs/x/untracked.tar']);
    assert.deepEqual(f.get('captured'), ['7 file(s) in the snapshot']);
    assert.deepEqual(f.get('archived'), ['2 file(s), 3.0 MB; 1 empty folder(s)']);
    assert.deepEqual(f.get('nested repos'), ['vendor/lib']);
    assert.deepEqual(f.get('kept commits'), ['3 only the reflog knew']);
    assert.deepEqual(f.get('regenerable'), ['40 file(s), 2 KB dropped: node_modules, dist']);
    assert.deepEqual(f.get('lost (agreed)'), ['2 path(s): big.bin (5 KB), secret (unreadable)']);
    // "branch" appears twice: the agent's branch, then what cleanup did with it.
    assert.deepEqual(f.get('branch'), [`paddock/${job.id}`, 'kept']);
  });

  it('an unreadable record: show fails with one sentence naming the agent; list shows it as unreadable', async () => {
    const good = await recordWith((j) => j);
    const broken = await store.create(sampleJob({ title: 'broken' }));
    fs.writeFileSync(path.join(store.jobDir(broken.id), 'job.json'), '{"truncated": ');
    await assert.rejects(withWindowOpen(home, () => runCli(showCommand, [broken.id], { PADDOCK_HOME: home })), (err: Error) => {
      assert.match(err.message, new RegExp(broken.id));
      assert.doesNotMatch(err.message, /\n/, 'one sentence');
      return true;
    });
    const list = await withWindowOpen(home, () => runCli(listCommand, [], { PADDOCK_HOME: home }));
    assert.equal(list.code, 0, list.stderr);
    assert.equal(list.stderr, '');
    const rows = list.stdout.trimEnd().split('\n');
    assert.match(rows[0], /^ID\s+STATE\s+GEN\s+CLEANUP\s+CPU\s+MEM\s+DISK\s+UP\s+TOKENS\s+TITLE$/);
    const brokenRow = rows.find((r) => r.startsWith(broken.id));
    assert.match(brokenRow ?? '', new RegExp(`^${broken.id}\\s+unreadable\\s+-\\s+\\S`));
    assert.match(rows.find((r) => r.startsWith(good.id)) ?? '', /\s+-\s+fix the tests$/);
  });

  it('list marks a cleanup that needs attention and cuts long titles', async () => {
    const job = await recordWith((j) => ({ ...j, title: 'x'.repeat(80), lifecycle: { ...j.lifecycle, state: 'completed' }, cleanup: cleanupOf({}) }));
    const list = await withWindowOpen(home, () => runCli(listCommand, [], { PADDOCK_HOME: home }));
    const row = list.stdout.split('\n').find((r) => r.startsWith(job.id)) ?? '';
    assert.match(row, /\bcompleted\s+1\s+incomplete!(\s+-){5}\s+x{59}…$/);
  });
});
