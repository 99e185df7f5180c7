/**
 * Two coordinators on one store, racing: every cleanup runs exactly once,
 * capacity is never exceeded, no queued job starts twice. And leadership
 * passes on when the leading process dies.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { addWorktree } from '../../../../src/core/git';
import { isTerminalState, JobRecord } from '../../../../src/core/store';
import { CLI_SCRIPT, CoordinatorSandbox, useCoordinatorSandbox, git, sleep } from './coordinatorFixture';

describe('Coordinator: two coordinators on one store', function () {
  this.timeout(240_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  /** A job with a worktree and a branch, made directly (fast), left in `state` as if its launcher set it. */
  async function agentWithWorktree(title: string, state: 'cancelled' | 'starting', detail: string): Promise<string> {
    const baseSha = git(sb.repo, 'rev-parse', 'HEAD');
    const job = await sb.createQueued(title);
    const worktree = join(`${sb.repo}.worktrees`, job.id);
    await sb.store.update(job.id, (j) => ({ ...j, baseSha, worktree, branch: `paddock/${job.id}`, cwd: worktree }));
    await addWorktree(sb.repo, { path: worktree, branch: `paddock/${job.id}`, baseSha });
    await sb.store.transition(job.id, state, { detail });
    return job.id;
  }

  /** An ended agent with a worktree and a branch: cancelled before it ran. */
  const endedAgent = (i: number) => agentWithWorktree(`ended ${i}`, 'cancelled', 'made by the test');

  it('races 50 cleanups and 20 starts: each cleanup once, capacity kept, no double start', async () => {
    const ended: string[] = [];
    for (let i = 0; i < 50; i++) ended.push(await endedAgent(i));
    const max = 4;
    const a = sb.coordinator({ maxConcurrent: max }, { tickMs: 200 });
    const b = sb.coordinator({ maxConcurrent: max }, { tickMs: 200 });
    await Promise.all([a.ready, b.ready]);
    assert.equal(Number(a.isLeader) + Number(b.isLeader), 1, 'exactly one leads');

    // A call may fail under contention (the leader then finishes that cleanup); failures are checked below.
    const cleanups = ended.flatMap((id) => [a.cleanup(id), b.cleanup(id)]).map((p) => p.catch((err: Error) => err));
    // Each agent runs until the gate opens, and the gate opens once two run at once: the slots overlap
    // however slowly the agents start (a second each was not enough once on the ps/lsof backend in CI,
    // with the 50 cleanups on the same 2 cores), and the queue presses on a full capacity meanwhile.
    const gate = join(sb.root, 'gate');
    const waitAtGate = ['sh', '-c', `while [ ! -e '${gate}' ]; do sleep 0.05; done`];
    const gateOpened = (async () => {
      const deadline = Date.now() + 120_000;
      for (;;) {
        const running = (await sb.store.list()).filter((e) => e.ok && e.job.lifecycle.state === 'running').length;
        if (running >= 2 || Date.now() > deadline) break;
        await sleep(50);
      }
      writeFileSync(gate, '');
    })();
    const starts: Promise<JobRecord>[] = [];
    for (let i = 0; i < 10; i++) {
      starts.push(a.start({ repo: sb.repo, title: `a${i}`, command: waitAtGate }));
      starts.push(b.start({ repo: sb.repo, title: `b${i}`, command: waitAtGate }));
    }
    const startedIds = (await Promise.all(starts)).map((j) => j.id);
    await Promise.all(cleanups);
    await gateOpened;

    // Cleanups that lost a git lock race retry on their own; wait for all of them and all starts.
    for (const id of ended) await sb.waitFor(id, (j) => j.cleanup?.phase === 'complete', 60_000);
    for (const id of startedIds) await sb.waitEnded(id, 60_000);
    // Capacity from what happened, not from samples: each start's slot is held from its move to
    // `starting` until its move to an ended state, as the timelines record them.
    const changes: { at: number; delta: number }[] = [];
    for (const id of startedIds) {
      const timeline = await sb.store.readTimeline(id);
      const took = timeline.find((e) => e.type === 'transition' && e.to === 'starting');
      const freed = timeline.find((e) => e.to !== undefined && isTerminalState(e.to));
      assert.ok(took && freed, `${id}: ${timeline.map((e) => `${e.type}→${e.to}`).join(',')}`);
      changes.push({ at: Date.parse(took.at), delta: 1 }, { at: Date.parse(freed.at), delta: -1 });
    }
    // A slot freed in the same millisecond as another is taken was freed first (the scheduler saw it free).
    changes.sort((x, y) => x.at - y.at || x.delta - y.delta);
    let active = 0;
    let maxActive = 0;
    for (const c of changes) maxActive = Math.max(maxActive, (active += c.delta));
    assert.ok(maxActive <= max, `capacity ${max} exceeded: ${maxActive} active at once`);
    assert.ok(maxActive >= 2, `the starts ran side by side (at most ${maxActive} at once), so the limit was tested`);
    for (const id of ended) {
      const types = (await sb.store.readTimeline(id)).map((e) => e.type);
      assert.equal(types.filter((t) => t === 'cleanup-complete').length, 1, `${id}: ${types.join(',')}`);
      // Attempts never overlap: each request is closed (complete/incomplete) before the next one.
      let open = 0;
      for (const t of types) {
        if (t === 'cleanup-requested') open++;
        if (t === 'cleanup-complete' || t === 'cleanup-incomplete' || t === 'cleanup-interrupted') open--;
        assert.ok(open <= 1 && open >= 0, `${id}: overlapping cleanup attempts: ${types.join(',')}`);
      }
      const job = await sb.store.read(id);
      assert.equal(existsSync(job.worktree!), false);
    }
    for (const id of startedIds) {
      const job = await sb.store.read(id);
      assert.equal(job.lifecycle.state, 'completed', `${id}: ${job.lifecycle.detail}`);
      assert.equal(job.lifecycle.generation, 1);
      const timeline = await sb.store.readTimeline(id);
      assert.equal(timeline.filter((e) => e.type === 'transition' && e.to === 'starting').length, 1, `${id} started twice`);
      assert.equal(timeline.filter((e) => e.type === 'transition' && e.to === 'running').length, 1, `${id} ran twice`);
    }
    assert.deepEqual(sb.branches().filter((br) => ended.some((id) => br === `paddock/${id}`)), []);
  });

  it('leadership passes on when the leading process dies', async () => {
    const child = spawn(process.execPath, [CLI_SCRIPT, 'coordinate'], { env: sb.env, stdio: 'ignore', detached: true });
    try {
      const lease = join(sb.home, 'coordinator', 'leader.lock', 'owner.json');
      const deadline = Date.now() + 15_000;
      while (!existsSync(lease)) {
        if (Date.now() > deadline) throw new Error('the CLI coordinator never took the lease');
        await sleep(25);
      }
      const c = sb.coordinator({}, { tickMs: 100 });
      await c.ready;
      assert.equal(c.isLeader, false);
      // Queued work waits for the leader; the live CLI coordinator runs it.
      const job = await c.start({ repo: sb.repo, command: ['true'] });
      await sb.waitEnded(job.id);
      process.kill(child.pid!, 'SIGKILL');
      await sb.waitFor(job.id, () => c.isLeader, 10_000);
      assert.equal(c.isLeader, true);
    } finally {
      try {
        process.kill(child.pid!, 'SIGKILL');
      } catch {
        // gone
      }
    }
  });

  it('a job left in starting by a dead launcher is failed and its worktree undone', async () => {
    const id = await endedAgent(0);
    // Simulate a launcher that died right after claiming the slot: a fresh queued job moved to starting.
    const abandoned = await agentWithWorktree('abandoned', 'starting', 'creating its worktree');
    const worktree = (await sb.store.read(abandoned)).worktree!;
    const c = sb.coordinator({}, { tickMs: 100 });
    await c.ready;
    const failed = await sb.waitFor(abandoned, (j) => isTerminalState(j.lifecycle.state));
    assert.equal(failed.lifecycle.state, 'failed');
    assert.equal(existsSync(worktree), false);
    assert.ok(!sb.branches().includes(`paddock/${abandoned}`));
    assert.ok(sb.branches().includes(`paddock/${id}`), 'other agents are untouched');
  });
});
