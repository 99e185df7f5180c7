/** Starting agents: worktree and branch, failures undone, capacity and queue order. Retry, stop and restarts: retryStop.test.ts. */
import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PaddockError } from '../../../../src/core/common/errors';
import { jobLock } from '../../../../src/core/operations/context';
import { ABANDONED_START_REASON } from '../../../../src/core/scheduler/abandonedStart';
import type { Coordinator } from '../../../../src/core/coordinator';
import { WORKER_LOG_FILE } from '../../../../src/core/worker/spawn';
import { stopJob } from '../../../../src/core/worker/stopJob';
import { isTerminalState } from '../../../../src/core/store';
import { CoordinatorSandbox, useCoordinatorSandbox, git, sleep } from './coordinatorFixture';

describe('Coordinator: start, failures undone, capacity, queue', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  it('starts an agent in its own worktree on paddock/<id> from HEAD', async () => {
    const c = sb.coordinator();
    const head = git(sb.repo, 'rev-parse', 'HEAD');
    const started = await c.start({ repo: sb.repo, command: ['sh', '-c', 'pwd > where.txt; git rev-parse --abbrev-ref HEAD >> where.txt'] });
    assert.equal(started.worktree, join(`${sb.repo}.worktrees`, started.id));
    assert.equal(started.branch, `paddock/${started.id}`);
    assert.equal(started.baseSha, head);
    const done = await sb.waitEnded(started.id);
    assert.equal(done.lifecycle.state, 'completed', done.lifecycle.detail ?? '');
    const where = readFileSync(join(started.worktree!, 'where.txt'), 'utf8').split('\n');
    assert.equal(where[0], started.worktree);
    assert.equal(where[1], `paddock/${started.id}`);
  });

  it('honours worktreeRoot', async () => {
    const root = join(sb.root, 'trees');
    const c = sb.coordinator({ worktreeRoot: root });
    const job = await c.start({ repo: sb.repo, command: ['true'] });
    assert.equal(job.worktree, join(root, 'repo', job.id));
    assert.ok(existsSync(job.worktree!));
  });

  // Bug 49: a bad base, like a missing program, is bad input found before anything exists; it used
  // to fail a record written first, left behind (and `paddock start` exited 1, not 2).
  const badInputs: [string, { base?: string; command: string[] }, RegExp][] = [
    ['a base that names no commit', { base: 'no-such-ref', command: ['true'] }, /^Base 'no-such-ref' is not a commit in /],
    ['a base that names a tree', { base: 'HEAD^{tree}', command: ['true'] }, /^Base 'HEAD\^\{tree\}' is not a commit in /],
    ['a command not on PATH', { command: ['paddock-no-such-program'] }, /^Command 'paddock-no-such-program' is not on PATH\.$/],
  ];
  for (const [what, request, wanted] of badInputs) {
    it(`${what} is refused as bad input and leaves nothing: no record, worktree or branch`, async () => {
      const c = sb.coordinator();
      await assert.rejects(c.start({ repo: sb.repo, ...request }), (err: PaddockError) => err.kind === 'usage' && wanted.test(err.message));
      assert.deepEqual(await sb.store.list(), []);
      assert.deepEqual(readdirSync(sb.home).includes('jobs') ? readdirSync(join(sb.home, 'jobs')) : [], [], 'no job folder');
      assert.deepEqual(sb.branches(), ['main']);
      assert.deepEqual(sb.worktrees(), [sb.repo]);
      assert.equal(existsSync(`${sb.repo}.worktrees`), false);
    });
  }

  it('a program given relative to the worktree (./run.sh) that exists only at the base starts and runs: it is looked for in the worktree, not the main one', async () => {
    git(sb.repo, 'checkout', '-q', '-b', 'with-script');
    writeFileSync(join(sb.repo, 'run.sh'), '#!/bin/sh\necho ran > ran.txt\n', { mode: 0o755 });
    git(sb.repo, 'add', 'run.sh');
    git(sb.repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'script');
    git(sb.repo, 'checkout', '-q', 'main');
    assert.equal(existsSync(join(sb.repo, 'run.sh')), false, 'the main worktree has no run.sh');
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, base: 'with-script', command: ['./run.sh'] });
    assert.equal((await sb.waitEnded(job.id)).lifecycle.state, 'completed');
    assert.equal(readFileSync(join(job.worktree!, 'ran.txt'), 'utf8'), 'ran\n');
  });

  it('attempts with a bad base are refused before the first is created', async () => {
    const c = sb.coordinator();
    await assert.rejects(c.startAttempts({ repo: sb.repo, base: 'no-such-ref', command: ['true'] }, 3), (err: PaddockError) => err.kind === 'usage' && /Base 'no-such-ref' is not a commit/.test(err.message));
    assert.deepEqual(await sb.store.list(), []);
    assert.deepEqual(sb.branches(), ['main']);
  });

  it('a profile whose command is not on PATH fails with that sentence', async () => {
    const c = sb.coordinator({ profiles: { ghost: { command: 'paddock-ghost-agent' } } });
    await assert.rejects(c.start({ repo: sb.repo, profile: 'ghost' }), /Command 'paddock-ghost-agent' is not on PATH\./);
    assert.deepEqual(sb.branches(), ['main']);
  });

  it('a failure after the worktree exists undoes the worktree and the branch', async () => {
    const c = sb.coordinator({}, { workerScript: join(sb.root, 'no-worker.js') });
    const err = await c.start({ repo: sb.repo, command: ['true'] }).then(
      () => undefined,
      (e: Error) => e,
    );
    assert.ok(err, 'start must fail when the worker cannot run');
    const [entry] = await sb.store.list();
    assert.ok(entry.ok);
    assert.equal(entry.job.lifecycle.state, 'failed');
    assert.deepEqual(sb.branches(), ['main']);
    assert.deepEqual(sb.worktrees(), [sb.repo]);
  });

  it('a worktree that cannot be created (its root is under a file) leaves no branch, registration or folder', async () => {
    const file = join(sb.root, 'a-file');
    writeFileSync(file, '');
    const c = sb.coordinator({ worktreeRoot: join(file, 'trees') });
    await assert.rejects(c.start({ repo: sb.repo, command: ['true'] }), /failed to start: Could not create the worktree/);
    const [entry] = await sb.store.list();
    assert.ok(entry.ok);
    assert.equal(entry.job.lifecycle.state, 'failed');
    assert.deepEqual(sb.branches(), ['main']);
    assert.deepEqual(sb.worktrees(), [sb.repo]);
    // The worker spawned (gated) while git tried is called off: it exits, and the record keeps git's reason.
    const log = join(sb.store.jobDir(entry.job.id), WORKER_LOG_FILE);
    for (let i = 0; i < 200 && !/called off before it began/.test(existsSync(log) ? readFileSync(log, 'utf8') : ''); i++) await sleep(25);
    assert.match(readFileSync(log, 'utf8'), /called off before it began/);
    await sleep(200);
    const after = await sb.store.read(entry.job.id);
    assert.equal(after.execution, null);
    assert.match(after.lifecycle.detail ?? '', /Could not create the worktree/);
  });

  it('an abandoned start whose worktree add died half-way loses its branch too', async () => {
    const c = sb.coordinator({}, { tickMs: 50 });
    await c.ready;
    // The launching process died after git made the branch and before the folder: a job in
    // `starting` with no worker, a branch, and no folder.
    const job = await sb.createQueued('died mid-add');
    const worktree = join(`${sb.repo}.worktrees`, job.id);
    const baseSha = git(sb.repo, 'rev-parse', 'HEAD');
    git(sb.repo, 'branch', `paddock/${job.id}`, baseSha);
    await sb.store.update(job.id, (j) => ({ ...j, worktree, branch: `paddock/${job.id}`, baseSha, cwd: worktree }));
    await sb.store.transition(job.id, 'starting', { detail: 'creating its worktree' });
    const failed = await sb.waitEnded(job.id);
    assert.equal(failed.lifecycle.state, 'failed');
    assert.deepEqual(sb.branches(), ['main']);
  });

  it('rejects a folder that is not a git repository before allocating anything', async () => {
    const c = sb.coordinator();
    await assert.rejects(c.start({ repo: sb.home, command: ['true'] }), (e: Error & { kind?: string }) => e.kind === 'usage');
    assert.equal((await sb.store.list()).length, 0);
  });

  it('keeps capacity and starts queued agents in order', async () => {
    const c = sb.coordinator({ maxConcurrent: 2 }, { tickMs: 100 });
    await c.ready;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await c.start({ repo: sb.repo, title: `n${i}`, command: ['sleep', '0.3'] })).id);
    let maxActive = 0;
    for (;;) {
      const jobs = (await sb.store.list()).flatMap((e) => (e.ok ? [e.job] : []));
      const active = jobs.filter((j) => ['starting', 'running', 'waiting', 'cancelling'].includes(j.lifecycle.state)).length;
      maxActive = Math.max(maxActive, active);
      if (jobs.every((j) => isTerminalState(j.lifecycle.state))) break;
      await sleep(10);
    }
    assert.ok(maxActive <= 2, `at most 2 at once, saw ${maxActive}`);
    const jobs = await Promise.all(ids.map((id) => sb.store.read(id)));
    for (const j of jobs) assert.equal(j.lifecycle.state, 'completed');
    const startOrder = [...jobs].sort((a, b) => (a.lifecycle.startedAt! < b.lifecycle.startedAt! ? -1 : 1)).map((j) => j.id);
    // The first two start together; the queued three start in the order they were queued.
    assert.deepEqual(startOrder.slice(2), ids.slice(2));
  });

  it('one pump launches, first in first out, every queued agent that fits, whoever requested them', async () => {
    /** Like a CLI command: a one-shot coordinator, disposed (lease released) when done. */
    const oneShot = async <T>(maxConcurrent: number, fn: (c: Coordinator) => Promise<T>): Promise<T> => {
      const c = sb.coordinator({ maxConcurrent });
      try {
        return await fn(c);
      } finally {
        c.dispose();
        await c.whenIdle();
      }
    };
    const blocker = await oneShot(1, (c) => c.start({ repo: sb.repo, command: ['sleep', '30'] }));
    const queued: string[] = [];
    for (let i = 0; i < 3; i++) queued.push((await oneShot(1, (c) => c.start({ repo: sb.repo, title: `q${i}`, command: ['sleep', '30'] }))).id);
    await stopJob(sb.store, blocker.id, { force: true }); // the slot frees without any pump
    // Two slots now: a later starter launches the two oldest and leaves its own queued.
    const late = await oneShot(2, (c) => c.start({ repo: sb.repo, title: 'late', command: ['sleep', '30'] }));
    assert.equal(late.lifecycle.state, 'queued');
    const states = await Promise.all(queued.map(async (id) => (await sb.store.read(id)).lifecycle.state));
    assert.deepEqual(
      states.map((s) => (['starting', 'running'].includes(s) ? 'launched' : s)),
      ['launched', 'launched', 'queued'],
    );
  });

  // Found measuring ten starts at once (issue 17): the pump awaited each launch — a worktree's
  // checkout, a worker's boot, its agent's start — before it claimed the next slot, so a window
  // starting ten agents started them one after another.
  it('launches the queued agents that fit side by side: their worktrees are checked out at once, each start still in its own slot', async () => {
    // A post-checkout hook that takes a second and notes, for each new worktree, when it began and ended.
    const log = join(sb.home, 'checkouts.log');
    const hook = join(sb.repo, '.git', 'hooks', 'post-checkout');
    writeFileSync(hook, `#!/bin/sh\necho "begin $(date +%s%N) $PWD" >> '${log}'\nsleep 1\necho "end $(date +%s%N) $PWD" >> '${log}'\n`, { mode: 0o755 });
    const c = sb.coordinator({ maxConcurrent: 3 });
    const jobs = await Promise.all([0, 1, 2, 3].map((i) => c.start({ repo: sb.repo, title: `side by side ${i}`, command: ['sleep', '30'] })));
    const states = await Promise.all(jobs.map(async (j) => (await sb.store.read(j.id)).lifecycle.state));
    assert.deepEqual(states.filter((s) => s === 'queued').length, 1, `three slots, four agents: ${states.join(', ')}`);
    const lines = readFileSync(log, 'utf8').trim().split('\n').map((l) => l.split(' '));
    const begins = lines.filter((l) => l[0] === 'begin').map((l) => Number(l[1]) / 1e6);
    const ends = lines.filter((l) => l[0] === 'end').map((l) => Number(l[1]) / 1e6);
    assert.equal(begins.length, 3, `three checkouts: ${lines.map((l) => l.join(' ')).join(' | ')}`);
    // One after another, the last would begin only after the first ended (each takes a second).
    assert.ok(Math.max(...begins) < Math.min(...ends), `the checkouts ran one after another: began ${begins.map((b) => (b - begins[0]).toFixed(0)).join(', ')} ms, ended ${ends.map((e) => (e - begins[0]).toFixed(0)).join(', ')} ms`);
    for (const j of jobs) await stopJob(sb.store, j.id, { force: true }).catch(() => undefined);
  });

  // Found by the bench's ten `paddock start` processes at once: the pump claimed what was queued,
  // waited for those launches and ended; what another process queued meanwhile (a start that does
  // not lead leaves its agent to the leader) stayed queued, nobody to launch it.
  it('a queue pump takes up, before it ends, what another process queued while its launches ran', async () => {
    const began = join(sb.home, 'checkout-began');
    writeFileSync(join(sb.repo, '.git', 'hooks', 'post-checkout'), `#!/bin/sh\ntouch '${began}'\nsleep 1\n`, { mode: 0o755 });
    // Like a CLI command's: no store watcher, so nothing but the pump itself looks at the queue again.
    const c = sb.coordinator({ maxConcurrent: 3 }, { watch: false });
    const starting = c.start({ repo: sb.repo, title: 'slow checkout', command: ['sleep', '30'] });
    for (const end = Date.now() + 20_000; !existsSync(began); await sleep(20)) assert.ok(Date.now() < end, 'the checkout never began');
    const other = await sb.createQueued('queued by another process meanwhile');
    const slow = await starting;
    assert.notEqual((await sb.store.read(other.id)).lifecycle.state, 'queued', 'left queued by the pump that ran while it was queued');
    await stopJob(sb.store, slow.id, { force: true }).catch(() => undefined);
  });

  it('a queue pump leaves a job alone while its start assigns the worktree, and fails one whose starter died at once', async () => {
    // Written the way `start` first writes a record, before it assigns the worktree: under the job's
    // operation lock, held by the start (here by this process, and by a process that then dies).
    // Both locks are taken before the coordinator runs: a pump that saw a record before its starter
    // took the lock would rightly fail it, and the test would race its own starter.
    const preparing = await sb.createQueued('being prepared');
    const held = await jobLock(sb.store, preparing.id).tryAcquire();
    assert.ok(held);
    const abandoned = await sb.createQueued('starter died');
    const starter = await sb.holdJobLockElsewhere(abandoned.id);
    try {
      const c = sb.coordinator({}, { tickMs: 50 });
      await c.ready;
      await sleep(300); // a few pump ticks with both starts alive
      assert.equal((await sb.store.read(abandoned.id)).lifecycle.state, 'queued', 'a live start keeps its job');
      const started = Date.now();
      // Its death writes nothing to the store: no store change brings the queue back to the job.
      await starter.kill();

      const failed = await sb.waitEnded(abandoned.id, 10_000);
      assert.equal(failed.lifecycle.state, 'failed');
      assert.match(failed.lifecycle.detail ?? '', /the process starting it stopped before it assigned a worktree/);
      assert.ok(Date.now() - started < 10_000);
      await sleep(500); // many pump ticks
      assert.equal((await sb.store.read(preparing.id)).lifecycle.state, 'queued', 'a live start keeps its job');
    } finally {
      await starter.kill();
      await held!.release();
    }
  });

  it('a launch whose launcher dies before its worker is spawned is failed and undone within seconds, with nothing else happening', async () => {
    // `starting`, its worktree made, no worker: the launcher holds the job's lock until it dies.
    const { id, worktree } = await sb.createAbandonedStart('launcher died');
    const launcher = await sb.holdJobLockElsewhere(id);
    try {
      const c = sb.coordinator({}, { tickMs: 50 });
      await c.ready;
      await sleep(300);
      assert.equal((await sb.store.read(id)).lifecycle.state, 'starting', 'a live launcher keeps its job');
      await launcher.kill();
      const failed = await sb.waitEnded(id, 10_000);
      assert.equal(failed.lifecycle.state, 'failed');
      assert.equal(failed.lifecycle.detail, ABANDONED_START_REASON);
      assert.ok(!existsSync(worktree), 'the worktree the launch made is removed');
      assert.deepEqual(sb.branches(), ['main'], 'and its branch');
    } finally {
      await launcher.kill();
    }
  });

  it('a start holds the job\'s lock from its record until its worktree is assigned', async () => {
    // Every record a start writes names a worktree by the time the job's lock is free; a record seen
    // without one is always under the lock of a live start.
    const c = sb.coordinator({}, { tickMs: 20 });
    await c.ready;
    const seen: string[] = [];
    let starting = true;
    // One look at a time, as fast as the store can be listed.
    const watching = (async () => {
      while (starting) {
        for (const e of await sb.store.list()) {
          if (!e.ok || e.job.worktree !== null) continue;
          if (await jobLock(sb.store, e.id).owner()) continue;
          // The lock was free: the start may have assigned the worktree and let go meanwhile.
          if ((await sb.store.read(e.id)).worktree === null) seen.push(e.id);
        }
        await sleep(2);
      }
    })();
    try {
      for (let i = 0; i < 5; i++) await c.start({ repo: sb.repo, command: ['true'] });
    } finally {
      starting = false;
      await watching;
    }
    assert.deepEqual(seen, [], 'no record without a worktree while its start\'s lock was free');
  });
});
