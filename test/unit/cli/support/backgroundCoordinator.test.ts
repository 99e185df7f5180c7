/**
 * The CLI with no window open: `paddock start` that queues an agent starts a
 * background coordinator (the real bundle, dist/cli.js), which launches the
 * agent when a slot frees and then exits by itself; `list` and `show` start one
 * for an agent left queued, or left starting by a launch that was killed, with
 * no coordinator to act on it.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jobLock } from '../../../../src/core/operations/context';
import { leaderLock } from '../../../../src/core/scheduler/leadership';
import { bytesRead, CLI_SCRIPT, CoordinatorSandbox, runCli, sleep, useCoordinatorSandbox } from '../../core/coordinator/coordinatorFixture';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits up to `timeoutMs` for `pid` to end; whether it did. */
async function untilGone(pid: number, timeoutMs = 15_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (alive(pid) && Date.now() < deadline) await sleep(50);
  return !alive(pid);
}

describe('background coordinator', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));
  let background: number | undefined;
  afterEach(() => {
    if (background !== undefined && alive(background)) process.kill(background, 'SIGKILL');
    background = undefined;
  });

  const cli = (args: string[]) => runCli(args, { cwd: sb.repo, env: sb.env });

  /**
   * One slot, held by a running agent; a second `paddock start` of `command` queues behind it and
   * starts the background coordinator: the ids, its stderr and that coordinator's pid.
   */
  async function queuedBehindOne(command: string): Promise<{ firstId: string; secondId: string; stderr: string; background: number }> {
    sb.store.policy.write({ maxConcurrent: 1 });
    const first = await cli(['start', '--title', 'holds the slot', '--', 'sh', '-c', 'read x']);
    assert.equal(first.code, 0, first.stderr);
    const firstId = first.stdout.trim();
    await sb.waitForState(firstId, ['running']);
    const second = await cli(['start', '--title', 'queued', '--', 'sh', '-c', command]);
    assert.equal(second.code, 0, second.stderr);
    const said = /\(pid (\d+), log/.exec(second.stderr);
    assert.ok(said, second.stderr);
    return { firstId, secondId: second.stdout.trim(), stderr: second.stderr, background: Number(said[1]) };
  }

  it('start that queues an agent starts one; it launches the agent when a slot frees and exits when idle', async () => {
    const queued = await queuedBehindOne('read x');
    const { firstId, secondId } = queued;
    background = queued.background;
    const said = /^Agent \w+ is queued: a background coordinator will start it when a slot frees up \(pid \d+, log (\S+); it exits when nothing is left to do\)\.\n$/.exec(queued.stderr);
    assert.ok(said, queued.stderr);
    const log = said[1];
    assert.equal((await sb.store.read(secondId)).lifecycle.state, 'queued');
    await sleep(1500);
    assert.ok(alive(background), 'it waits while an agent is queued');

    const stopped = await cli(['stop', firstId]);
    assert.equal(stopped.code, 0, stopped.stderr);
    await sb.waitForState(secondId, ['running']);
    assert.ok(await untilGone(background), 'it exits once nothing is left to do');
    assert.match(readFileSync(log, 'utf8'), /nothing is left to do: exiting/);
    assert.equal((await sb.store.read(secondId)).lifecycle.state, 'running', 'the agent it launched keeps running');
  });

  // Bug 162: an agent's own `paddock start` (its launcher is on its PATH) queued behind it, and the
  // coordinator it started carried the agent's marker: the agent's stop ended it, stranding the queue.
  it("a coordinator started from inside an agent is not the agent's: the agent's stop leaves it to launch what was queued (bug 162)", async () => {
    sb.store.policy.write({ maxConcurrent: 1 });
    const said = { out: join(sb.home, 'inner.out'), err: join(sb.home, 'inner.err') };
    const first = await cli(['start', '--title', 'starts another', '--', 'sh', '-c', `paddock start --title inner -- sh -c 'read x' >${said.out} 2>${said.err}; read x`]);
    assert.equal(first.code, 0, first.stderr);
    const firstId = first.stdout.trim();
    let started: RegExpExecArray | null = null;
    for (const deadline = Date.now() + 30_000; !started && Date.now() < deadline; await sleep(100)) {
      started = existsSync(said.err) ? /\(pid (\d+), log/.exec(readFileSync(said.err, 'utf8')) : null;
    }
    assert.ok(started, existsSync(said.err) ? readFileSync(said.err, 'utf8') : 'the inner start said nothing');
    background = Number(started[1]);
    const secondId = readFileSync(said.out, 'utf8').trim();
    assert.equal((await sb.store.read(secondId)).lifecycle.state, 'queued');
    if (existsSync(`/proc/${background}/environ`)) {
      const environ = readFileSync(`/proc/${background}/environ`, 'utf8').split('\0');
      assert.deepEqual(environ.filter((e) => /^PADDOCK_(JOB_ID|AGENT_ID|PORTS?|SOCKET|AGENT_TOKEN|WORKTREE)=/.test(e)), [], 'no per-agent variable of the agent');
    }
    const usage = (await cli(['show', firstId, '--json'])).stdout;
    assert.ok(JSON.parse(usage).usage.rssBytes < 40 * 1024 * 1024, `the agent's memory counts only sh and its children: ${usage}`);

    assert.equal((await cli(['stop', firstId])).code, 0);
    await sb.waitForState(secondId, ['running']);
    assert.ok(alive(background), 'the agent\'s stop left it running');
    assert.equal((await cli(['stop', secondId])).code, 0);
    assert.ok(await untilGone(background), 'it exits once nothing is left to do');
  });

  // Found by reading: while work was left, a background coordinator re-read every record of the store
  // each second to see whether it could exit (a store of 1,000 agents: ~1.4 MB of records a second).
  it('while it waits for a slot, it does not re-read the store each second, and still exits once the work is done', async function () {
    if (!existsSync(`/proc/${process.pid}/io`)) return this.skip();
    const listingBytes = await sb.seedEndedRecords(300);
    const queued = await queuedBehindOne('true');
    background = queued.background;
    await sleep(1000); // settled: leading, the agent queued behind the running one
    const before = bytesRead(background);
    await sleep(4000);
    const read = bytesRead(background) - before;
    assert.ok(alive(background), 'it waits while an agent is queued');
    // The store watcher's own look for dead workers lists the store every 5 s: once at most here.
    assert.ok(read < 1.5 * listingBytes, `it read ${read} bytes in 4 s; one listing of the store is ${listingBytes}`);

    assert.equal((await cli(['stop', queued.firstId])).code, 0);
    await sb.waitEnded(queued.secondId);
    assert.ok(await untilGone(background), 'it exits once nothing is left to do');
  });

  /**
   * An agent queued behind a running one whose background coordinator was killed (SIGKILL: the OOM
   * killer, a person's kill -9), then the slot freed by that agent ending on its own (its `read` given
   * a line; a `paddock stop` launches what waits itself, bug 220): a real record, queued, that nothing will launch.
   */
  async function strandedQueued(): Promise<string> {
    const { firstId, secondId, background: killed } = await queuedBehindOne('echo landed');
    process.kill(killed, 'SIGKILL');
    assert.ok(await untilGone(killed, 10_000));
    assert.equal((await cli(['send', firstId, 'done'])).code, 0);
    await sb.waitEnded(firstId);
    await sleep(1000);
    assert.equal((await sb.store.read(secondId)).lifecycle.state, 'queued', 'nothing launches it');
    return secondId;
  }

  function backgroundStarted(stderr: string, id: string): number {
    const said = new RegExp(
      `^Agent ${id} is queued with no coordinator running: a background coordinator will launch it when a slot is free, or record why it cannot \\(pid (\\d+), log \\S+; it exits when nothing is left to do\\)\\.\n$`,
    ).exec(stderr);
    assert.ok(said, stderr);
    return Number(said[1]);
  }

  // The exit race (left by the previous stop, now closed): a `start` that queues writes its record,
  // then sees a coordinator leading and leaves the agent to it; that coordinator had decided, on a
  // listing older than the record (re-listed only when the watcher says so), that nothing was left,
  // and exited. The record here appears without the watcher's signal, as a late one would be.
  it('work that appears as an idle coordinator exits is handed to a new one, which launches it', async () => {
    const id = await strandedQueued();
    const aside = join(sb.home, '..', `aside-${id}`);
    renameSync(join(sb.home, 'jobs', id), aside);
    const coordinate = spawn(process.execPath, [CLI_SCRIPT, 'coordinate', '--until-idle'], { cwd: sb.repo, env: sb.env, stdio: ['ignore', 'ignore', 'pipe'] });
    let said = '';
    coordinate.stderr.on('data', (d) => (said += d));
    background = coordinate.pid;
    const lease = leaderLock(sb.home);
    const deadline = Date.now() + 10_000;
    while ((await lease.owner())?.pid !== coordinate.pid) {
      assert.ok(Date.now() < deadline, `it never led: ${said}`);
      await sleep(25);
    }
    await sleep(500); // its first listing is done: the record comes after it
    renameSync(aside, join(sb.home, 'jobs', id));
    assert.ok(await untilGone(coordinate.pid!), 'it exits, having seen nothing to do');
    assert.match(said, /nothing is left to do: exiting/);
    const handedTo = /work arrived as this coordinator gave up the lease: started another \(pid (\d+)\)/.exec(said);
    assert.ok(handedTo, said);
    background = Number(handedTo[1]);
    const ended = await sb.waitEnded(id, 20_000);
    assert.equal(ended.lifecycle.state, 'completed', ended.lifecycle.detail ?? '');
    assert.ok(await untilGone(background), 'the new one exits once nothing is left to do');
  });

  for (const verb of ['list', 'list --json', 'show', 'show --json'] as const) {
    it(`\`paddock ${verb}\` launches an agent left queued with no coordinator (no window open), and says so once`, async () => {
      const id = await strandedQueued();
      const [command, ...flags] = verb.split(' ');
      const args = command === 'show' ? ['show', id, ...flags] : [command, ...flags];
      const looked = await cli(args);
      assert.equal(looked.code, 0, looked.stderr);
      if (flags.includes('--json')) JSON.parse(looked.stdout); // stdout stays the JSON alone
      background = backgroundStarted(looked.stderr, id);
      const ended = await sb.waitEnded(id);
      assert.equal(ended.lifecycle.state, 'completed', ended.lifecycle.detail ?? '');
      assert.ok(await untilGone(background), 'it exits once nothing is left to do');
      const again = await cli(args);
      assert.equal(again.code, 0, again.stderr);
      assert.equal(again.stderr, '', 'nothing queued: nothing said, nothing started');
    });
  }

  // Found by the crash fault suite: a start killed while it took the lease left it without its owner,
  // which is judged abandoned only after 5 s. The next start queued its agent and started the background
  // coordinator, which could not take the lease either and exited at once: the agent stayed queued.
  it('a lease left without its owner (an older Paddock killed taking it): the background coordinator waits it out instead of exiting, the agent is launched, then it exits', async () => {
    const lease = join(sb.home, 'coordinator', 'leader.lock');
    mkdirSync(lease, { recursive: true });
    writeFileSync(join(lease, '.0123456789abcdef.tmp'), ''); // its owner file, never renamed into place
    const started = await cli(['start', '--title', 'behind an abandoned lease', '--', 'sh', '-c', 'echo landed']);
    assert.equal(started.code, 0, started.stderr);
    const said = /^Agent (\w+) is queued: a background coordinator will start it .*\(pid (\d+), log (\S+);/.exec(started.stderr);
    assert.ok(said, started.stderr);
    background = Number(said[2]);
    const ended = await sb.waitEnded(said[1], 20_000);
    assert.equal(ended.lifecycle.state, 'completed', ended.lifecycle.detail ?? '');
    assert.ok(await untilGone(background), 'it exits once nothing is left to do');
    // It waited for the lease (≥ 5 s, the ownerless lease's age), where it used to exit at once. Who then
    // leads is a race it may lose to the start's own coordinator, retrying the lease as it waits: either launches.
    const log = readFileSync(said[3], 'utf8');
    const at = (pattern: RegExp) => Date.parse(log.split('\n').find((line) => pattern.test(line))?.split(' ')[0] ?? '');
    const waited = at(/exiting$/) - at(/ coordinating /);
    assert.ok(waited >= 3000, `it exited ${waited} ms after it started:\n${log}`);
  });

  it('a queued agent with a coordinator leading is left to it: nothing is started, nothing said', async () => {
    const queued = await queuedBehindOne('read x');
    background = queued.background;
    const listed = await cli(['list']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(listed.stderr, '');
    assert.equal((await cli(['stop', queued.firstId])).code, 0);
    await sb.waitForState(queued.secondId, ['running']);
    assert.equal((await cli(['stop', queued.secondId])).code, 0);
  });

  it('`paddock list` settles a start whose launcher was killed (no window open): failed with the reason, its half-made worktree undone', async () => {
    const { id, worktree } = await sb.createAbandonedStart('launcher killed');
    const looked = await cli(['list']);
    assert.equal(looked.code, 0, looked.stderr);
    const said = new RegExp(`^Agent ${id} was left starting by a launch that stopped with no coordinator running: a background coordinator will .*\\(pid (\\d+), log \\S+; it exits when nothing is left to do\\)\\.\n$`).exec(looked.stderr);
    assert.ok(said, looked.stderr);
    background = Number(said[1]);
    const ended = await sb.waitEnded(id);
    assert.equal(ended.lifecycle.state, 'failed');
    assert.match(ended.lifecycle.detail ?? '', /launching it stopped before its worker started/);
    assert.equal(existsSync(worktree), false, 'the worktree the launch made is undone (nothing ever ran in it)');
    assert.ok(await untilGone(background), 'it exits once nothing is left to do');
    assert.equal((await cli(['list'])).stderr, '');
  });

  it('a launch killed holding its lock while a background coordinator leads: the agent is failed, and the coordinator exits instead of waiting on it forever', async () => {
    // Left `starting` by a launcher that holds its lock (alive), before any coordinator runs.
    sb.store.policy.write({ maxConcurrent: 1 });
    const { id, worktree } = await sb.createAbandonedStart('launcher killed later');
    const launcher = await sb.holdJobLockElsewhere(id);
    // It holds the only slot: the next start queues behind it and starts the background coordinator.
    const queued = await cli(['start', '--title', 'queued', '--', 'sh', '-c', 'echo landed']);
    assert.equal(queued.code, 0, queued.stderr);
    const said = /\(pid (\d+), log/.exec(queued.stderr);
    assert.ok(said, queued.stderr);
    background = Number(said[1]);
    await sleep(1000);
    assert.equal((await sb.store.read(id)).lifecycle.state, 'starting', 'a live launcher keeps its agent');
    // Its death writes nothing to the store: the background coordinator notices it by the lock.
    await launcher.kill();
    const failed = await sb.waitEnded(id, 10_000);
    assert.match(failed.lifecycle.detail ?? '', /launching it stopped before its worker started/);
    assert.equal(existsSync(worktree), false, 'the worktree the launch made is undone');
    const landed = await sb.waitEnded(queued.stdout.trim());
    assert.equal(landed.lifecycle.state, 'completed', landed.lifecycle.detail ?? '');
    assert.ok(await untilGone(background), 'it exits once nothing is left to do');
  });

  it('a start under way (its operation lock held) is left to its launcher: nothing started, nothing said', async () => {
    const { id } = await sb.createAbandonedStart('launcher killed');
    const held = await jobLock(sb.store, id).acquire(5_000);
    try {
      for (const args of [['list'], ['show', id]]) {
        const looked = await cli(args);
        assert.equal(looked.code, 0, looked.stderr);
        assert.equal(looked.stderr, '', args.join(' '));
      }
      assert.equal((await sb.store.read(id)).lifecycle.state, 'starting');
    } finally {
      await held.release();
    }
    // Its launcher gone now: stop settles it.
    assert.equal((await cli(['stop', id])).code, 0);
  });
});
