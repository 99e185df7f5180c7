/**
 * An agent whose record is damaged (overwritten by hand, by the disk) while it runs, through the
 * real bundle. Found by hand: `paddock stop` refused ("Agent X is unreadable: …"), so the agent
 * and the processes it had started could only be ended with `kill`. Stop now ends every process
 * carrying the agent's marker (and so lets its worker exit), never touching the record; cleanup
 * still refuses, removing nothing, since the record is where the worktree and branch facts live.
 * Forget, once nothing of it runs, keeps its whole folder in `kept/`: it leaves the list, nothing is deleted.
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findByEnvMarker, isSameAndRunning, readProcStat } from '../../../src/core/proc';
import { assertOneSentence, CoordinatorSandbox, runCli, sleep, useCoordinatorSandbox } from '../core/coordinator/coordinatorFixture';
import { damageRecord } from '../core/store/helpers';

const DAMAGED = '{garbage\n';

describe('CLI: an agent whose record is unreadable', function () {
  this.timeout(90_000);
  let sb!: CoordinatorSandbox;
  const started: { id: string; worker: { pid: number; startTime: number } }[] = [];
  useCoordinatorSandbox((fresh) => (sb = fresh));
  afterEach(() => {
    // Nothing else ends an agent whose record cannot be read: on the old code the test leaves it running.
    for (const { id, worker } of started.splice(0)) {
      for (const p of findByEnvMarker('PADDOCK_JOB_ID', id)) killQuietly(p.pid);
      if (isSameAndRunning(worker)) killQuietly(worker.pid);
    }
  });

  const cli = (args: string[]) => runCli(args, { cwd: sb.repo, env: sb.env });
  const recordFile = (id: string) => join(sb.home, 'jobs', id, 'job.json');

  /** Starts an agent that also leaves a process in a session of its own (setsid), waits for both, then damages its record. */
  async function damagedRunningAgent(agentScript = 'sleep 300'): Promise<{ id: string; worker: { pid: number; startTime: number } }> {
    const run = await cli(['start', '--', 'sh', '-c', `setsid sleep 301 & ${agentScript}`]);
    assert.equal(run.code, 0, run.stderr);
    const id = run.stdout.trim();
    const job = await sb.waitForState(id, ['running']);
    const deadline = Date.now() + 10_000;
    while (!findByEnvMarker('PADDOCK_JOB_ID', id).some((p) => p.pid === p.sid && p.comm === 'sleep')) {
      assert.ok(Date.now() < deadline, 'the escaped process never started');
      await sleep(25);
    }
    const workerPid = job.lifecycle.workerPid!;
    const worker = { pid: workerPid, startTime: readProcStat(workerPid)!.startTime };
    started.push({ id, worker });
    await damageRecord(sb.home, id, DAMAGED);
    return { id, worker };
  }

  it('stop ends the agent, its escaped process and so its worker, says the record is still unreadable, and leaves the record as it was', async () => {
    const { id, worker } = await damagedRunningAgent();
    const run = await cli(['stop', id]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout.trim().split('\n').length, 1, run.stdout);
    assert.match(run.stdout, new RegExp(`^Agent ${id}'s processes were stopped; ended .*pid \\d+ \\(sleep\\).*; its record is still unreadable \\(the record is not valid JSON`));
    assert.doesNotMatch(run.stdout, /still running/, 'the worker ended with its agent');
    assert.deepEqual(findByEnvMarker('PADDOCK_JOB_ID', id).map((p) => `${p.pid} ${p.comm}`), [], 'nothing of the agent runs');
    assert.equal(isSameAndRunning(worker), false, 'its worker exited');
    assert.equal(readFileSync(recordFile(id), 'utf8'), DAMAGED, 'the damaged record is left as it was');
    const again = await cli(['stop', id]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, new RegExp(`^Agent ${id} had no process left to stop; its record is still unreadable`));
  });

  it('stop --force kills at once an agent that ignores SIGTERM; a frozen worker is refused without --force and killed with it', async () => {
    const { id, worker } = await damagedRunningAgent(`trap '' TERM; sleep 300; sleep 300`);
    process.kill(worker.pid, 'SIGSTOP');
    const refused = await cli(['stop', id]);
    assert.equal(refused.code, 1, refused.stdout);
    assertOneSentence(refused.stderr);
    assert.match(refused.stderr, new RegExp(`is stopped \\(SIGSTOP\\); run paddock stop ${id} --force`));
    assert.ok(findByEnvMarker('PADDOCK_JOB_ID', id).length > 0, 'a refused stop touches nothing');
    const began = Date.now();
    const forced = await cli(['stop', id, '--force']);
    assert.equal(forced.code, 0, forced.stderr);
    assert.ok(Date.now() - began < 9_000, `--force waited for a grace (${Date.now() - began} ms)`);
    assert.match(forced.stdout, /its record is still unreadable/);
    assert.deepEqual(findByEnvMarker('PADDOCK_JOB_ID', id).map((p) => `${p.pid} ${p.comm}`), [], 'nothing of the agent runs');
    assert.equal(isSameAndRunning(worker), false, 'the frozen worker was killed');
    assert.equal(readFileSync(recordFile(id), 'utf8'), DAMAGED);
  });

  it('cleanup refuses in one sentence and removes nothing: no worktree, branch or record', async () => {
    const run = await cli(['start', '--', 'true']);
    assert.equal(run.code, 0, run.stderr);
    const id = run.stdout.trim();
    const job = await sb.waitEnded(id);
    await damageRecord(sb.home, id, DAMAGED);
    for (const args of [['cleanup', id, '--yes'], ['cleanup', id, '--delete-branch', '--yes']]) {
      const refused = await cli(args);
      assert.equal(refused.code, 1, refused.stdout);
      assertOneSentence(refused.stderr);
      assert.match(refused.stderr, new RegExp(`Agent ${id} is unreadable: the record is not valid JSON`));
    }
    assert.ok(existsSync(job.worktree!), 'the worktree is kept');
    assert.ok(sb.branches().includes(job.branch!), 'the branch is kept');
    assert.equal(readFileSync(recordFile(id), 'utf8'), DAMAGED, 'the record is kept as it was');
  });

  it('forget removes an ended unreadable agent from the list by keeping its whole folder in kept/, deleting nothing', async () => {
    const run = await cli(['start', '--', 'sh', '-c', 'echo its-output']);
    assert.equal(run.code, 0, run.stderr);
    const id = run.stdout.trim();
    const job = await sb.waitEnded(id);
    await damageRecord(sb.home, id, DAMAGED);
    const folderBefore = readdirSync(join(sb.home, 'jobs', id)).sort();

    const forgotten = await cli(['forget', id]);
    assert.equal(forgotten.code, 0, forgotten.stderr);
    const kept = join(sb.home, 'kept', id);
    assert.equal(forgotten.stdout, `Removed unreadable agent ${id} from the list. Its whole folder (the damaged record, its output and evidence) is kept in ${kept}; its worktree and branch, if it had any, are left as they are (git worktree list in its repository shows them).\n`);
    assert.equal(existsSync(join(sb.home, 'jobs', id)), false, 'gone from the list');
    assert.deepEqual(readdirSync(kept).sort(), folderBefore, 'the whole folder is kept');
    assert.equal(readFileSync(join(kept, 'job.json'), 'utf8'), DAMAGED, 'with the damaged record as it was');
    assert.ok(existsSync(job.worktree!), 'the worktree is left');
    assert.ok(sb.branches().includes(job.branch!), 'the branch is left');
    const listed = await cli(['list']);
    assert.doesNotMatch(listed.stdout, new RegExp(id));
    const plan = await cli(['prune', '--snapshots']);
    assert.equal(plan.code, 0, plan.stderr);
    assert.match(plan.stdout, new RegExp(`^Left ${kept}: the record is not valid JSON`, 'm'), 'prune names it and leaves it');
    assert.ok(existsSync(join(kept, 'job.json')));
  });

  it('forget refuses an unreadable agent while it runs, touching nothing', async () => {
    const { id } = await damagedRunningAgent();
    const refused = await cli(['forget', id]);
    assert.equal(refused.code, 1, refused.stdout);
    assertOneSentence(refused.stderr);
    assert.match(refused.stderr, new RegExp(`Agent ${id} cannot be read and its worker still runs; paddock stop ${id} ends it first\\.`));
    assert.equal(readFileSync(recordFile(id), 'utf8'), DAMAGED, 'the record is where it was');
    assert.equal(existsSync(join(sb.home, 'kept', id)), false);
  });

  it('forget refuses an unreadable agent whose worker died while a process of it runs on, naming it', async () => {
    const { id, worker } = await damagedRunningAgent();
    process.kill(worker.pid, 'SIGKILL');
    const deadline = Date.now() + 10_000;
    while (isSameAndRunning(worker)) {
      assert.ok(Date.now() < deadline, 'the worker did not die');
      await sleep(25);
    }
    // Its execution lock, no longer refreshed, goes stale (10 s): until then the worker reads as running.
    while ((await cli(['show', id])).stderr.includes('its worker is still running')) {
      assert.ok(Date.now() < deadline + 15_000, 'the dead worker still reads as running');
      await sleep(250);
    }
    const escaped = findByEnvMarker('PADDOCK_JOB_ID', id);
    assert.ok(escaped.length > 0, 'the setsid process outlives the worker');
    const refused = await cli(['forget', id]);
    assert.equal(refused.code, 1, refused.stdout);
    assertOneSentence(refused.stderr);
    assert.match(refused.stderr, new RegExp(`Agent ${id} cannot be read and \\d+ of its processes still run \\(pid [0-9, ]*${escaped[0].pid}[0-9, ]*\\); paddock stop ${id} ends them first\\.`));
    assert.equal(readFileSync(recordFile(id), 'utf8'), DAMAGED, 'the record is where it was');
    const stopped = await cli(['stop', id]);
    assert.equal(stopped.code, 0, stopped.stderr);
    const forgotten = await cli(['forget', id]);
    assert.equal(forgotten.code, 0, forgotten.stderr);
    assert.ok(existsSync(join(sb.home, 'kept', id, 'job.json')));
  });

  // Bug 50: `list` showed such a leftover unreadable while show, stop, cleanup, logs and retry said
  // "No agent X exists" (status 2), and forget failed in errno text on a plain file.
  for (const [what, make, reason] of [
    ['a folder without a record', (dir: string) => mkdirSync(dir), /it has no record \(its creation was interrupted\)/],
    ['a folder with only a record being written', (dir: string) => (mkdirSync(dir), writeFileSync(join(dir, '.tmp-job.json.123.0a1b2c3d'), '{"partial":')), /it has no record \(its creation was interrupted\)/],
    ['a plain file', (dir: string) => writeFileSync(dir, 'x'), /its folder is a plain file, so it has no record \(its creation was interrupted\)/],
  ] as const) {
    it(`an interrupted create left as ${what} is unreadable in every command, as in list, and forget removes it`, async () => {
      const id = 'left0ver1';
      const dir = join(sb.home, 'jobs', id);
      mkdirSync(join(sb.home, 'jobs'), { recursive: true });
      make(dir);
      const longAgo = new Date(Date.now() - 3_600_000);
      utimesSync(dir, longAgo, longAgo);
      const listed = await cli(['list']);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, new RegExp(`${id} +unreadable .*${reason.source}`));
      const hint = new RegExp(`Agent ${id} is unreadable: ${reason.source}; paddock forget ${id} removes it\\.$`);
      for (const args of [['show', id], ['cleanup', id, '--yes'], ['logs', id], ['retry', id]]) {
        const run = await cli(args);
        assert.equal(run.code, 1, `${args.join(' ')}: ${run.stderr}`);
        assertOneSentence(run.stderr);
        assert.match(run.stderr.trim(), hint, args.join(' '));
      }
      const stopped = await cli(['stop', id]);
      assert.equal(stopped.code, 0, stopped.stderr);
      assert.match(stopped.stdout, new RegExp(`^Agent ${id} had no process left to stop; its record is still unreadable \\(${reason.source}`));
      const forgotten = await cli(['forget', id]);
      assert.equal(forgotten.code, 0, forgotten.stderr);
      assert.equal(existsSync(dir), false);
      const gone = await cli(['show', id]);
      assert.equal(gone.code, 2);
      assert.match(gone.stderr, new RegExp(`No agent ${id} exists`));
    });
  }

  it('a folder without a record still young is unreadable too, said as a create that may be under way', async () => {
    mkdirSync(join(sb.home, 'jobs', 'young0001'), { recursive: true });
    const run = await cli(['show', 'young0001']);
    assert.equal(run.code, 1, run.stderr);
    assertOneSentence(run.stderr);
    assert.match(run.stderr, /Agent young0001 is unreadable: it has no record yet \(its creation is under way, or was interrupted\); if it stays so, paddock forget young0001 removes it\./);
  });

  function killQuietly(pid: number): void {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
});
