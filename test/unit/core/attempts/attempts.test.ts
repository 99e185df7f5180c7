/**
 * Several attempts at one task, end to end on real parts: a real repository,
 * real workers and PTYs, real shell programs as agents that make different
 * changes (one breaks the check), the repository's check command from a
 * trusted `.paddock.json`. Capacity is judged from the timelines' timestamps.
 */
import * as assert from 'node:assert/strict';
import { findByEnvMarkerAsync } from '../../../../src/core/proc';
import { AGENT_MARKER_ENV } from '../../../../src/core/worker/agentMarker';
import { canCheck, canKeep, canStop } from '../../../../src/core/operations/rules';
import { groupKeepLock, heldGroupKeepLock } from '../../../../src/core/operations/groupLock';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readRepoConfig } from '../../../../src/core/repoConfig/paddockJson';
import { RepoConfigTrust } from '../../../../src/core/repoConfig/trust';
import { isTerminalState, JobRecord } from '../../../../src/core/store';
import { assertOneSentence, CoordinatorSandbox, git, runCli, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';

/** Agents as profiles: each writes its own result.txt (alpha and beta good, broken bad; beta commits). */
const PROFILES = {
  alpha: { command: 'sh', args: ['-c', "printf 'good\\nshared line\\nalpha only\\n' > result.txt; sleep 1"] },
  beta: { command: 'sh', args: ['-c', "printf 'good\\nshared line\\n\\nbeta only\\n' > result.txt && git add result.txt && git commit -qm beta; sleep 1"] },
  broken: { command: 'sh', args: ['-c', "printf 'bad\\nshared line\\n' > result.txt; sleep 1"] },
  // Takes no prompt on its command line: the start's prompt is typed in first (bug 58), then what is sent.
  reader: { command: 'sh', args: ['-c', 'read prompt; read line; printf "%s\\n" "$prompt" "$line" > got.txt'] },
};

/** Check: prints a line with a token shape (it must be redacted) and passes only when result.txt starts with "good". */
const CHECK = 'echo "checking with sk-ant-abcdefghijklmnopqrstuvwx"; head -1 result.txt; test "$(head -1 result.txt)" = good';

describe('Attempts: a group started, checked, compared, one kept', function () {
  this.timeout(180_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));


  async function waitChecked(id: string): Promise<JobRecord> {
    return sb.waitFor(id, (j) => isTerminalState(j.lifecycle.state) && (j.check?.state === 'passed' || j.check?.state === 'failed'), 60_000);
  }

  it('starts 3 attempts within capacity, records each check, compares them, and Keep This One cleans the others with evidence', async () => {
    await sb.trustCheck(CHECK);
    const max = 2;
    const c = sb.coordinator({ maxConcurrent: max, profiles: PROFILES }, { tickMs: 200 });
    await c.ready;
    const { jobs, failed } = await c.startAttempts({ repo: sb.repo, prompt: 'Fix the date test' }, 3, ['alpha', 'beta', 'broken']);
    assert.deepEqual(failed, []);
    assert.equal(jobs.length, 3);
    const groupId = jobs[0].group!.id;
    assert.deepEqual(jobs.map((j) => [j.group?.id, j.group?.index, j.group?.size, j.group?.title, j.profile]), [
      [groupId, 1, 3, 'Fix the date test', 'alpha'],
      [groupId, 2, 3, 'Fix the date test', 'beta'],
      [groupId, 3, 3, 'Fix the date test', 'broken'],
    ]);
    assert.equal(new Set(jobs.map((j) => j.worktree)).size, 3, 'each attempt has its own worktree');
    const [alpha, beta, broken] = await Promise.all(jobs.map((j) => waitChecked(j.id)));

    // Check results as recorded.
    assert.equal(alpha.check!.state, 'passed');
    assert.equal(alpha.check!.exitCode, 0);
    assert.equal(beta.check!.state, 'passed');
    assert.equal(broken.check!.state, 'failed');
    assert.equal(broken.check!.exitCode, 1);
    assert.match(broken.check!.summary, /^bad$/m);
    assert.ok(broken.check!.durationMs! >= 0);
    for (const j of [alpha, beta, broken]) {
      assert.doesNotMatch(j.check!.summary, /sk-ant-/, 'the token is redacted');
      assert.match(j.check!.summary, /checking with \[REDACTED\]/);
      assert.equal(j.check!.runner ?? null, null);
    }

    // Capacity: agents hold a slot from `starting` to their end, checks from check-started to their result.
    const changes: { at: number; delta: number }[] = [];
    for (const j of [alpha, beta, broken]) {
      const timeline = await sb.store.readTimeline(j.id);
      const took = timeline.find((e) => e.type === 'transition' && e.to === 'starting');
      const freed = timeline.find((e) => e.to !== undefined && isTerminalState(e.to));
      const checkStart = timeline.find((e) => e.type === 'check-started');
      const checkEnd = timeline.find((e) => e.type === 'check-passed' || e.type === 'check-failed');
      assert.ok(took && freed && checkStart && checkEnd, timeline.map((e) => e.type).join(','));
      changes.push({ at: Date.parse(took.at), delta: 1 }, { at: Date.parse(freed.at), delta: -1 });
      changes.push({ at: Date.parse(checkStart.at), delta: 1 }, { at: Date.parse(checkEnd.at), delta: -1 });
      assert.ok(Date.parse(checkStart.at) >= Date.parse(freed.at), 'the check runs after its agent ended');
    }
    changes.sort((x, y) => x.at - y.at || x.delta - y.delta);
    let active = 0;
    let maxActive = 0;
    for (const ch of changes) maxActive = Math.max(maxActive, (active += ch.delta));
    assert.ok(maxActive <= max, `capacity ${max} exceeded: ${maxActive} at once`);
    assert.equal(maxActive, max, 'the attempts ran side by side, so the limit was tested');

    // Compare: files, +/−, commits, lines in common.
    const cmp = await c.compare(groupId);
    assert.equal(cmp.group.title, 'Fix the date test');
    assert.deepEqual(cmp.attempts.map((a) => [a.index, a.source, a.commits, a.files.map((f) => [f.path, f.added, f.removed]), a.check?.state]), [
      [1, 'worktree', 0, [['result.txt', 3, 0]], 'passed'],
      [2, 'worktree', 1, [['result.txt', 4, 0]], 'passed'],
      [3, 'worktree', 0, [['result.txt', 2, 0]], 'failed'],
    ]);
    assert.deepEqual(
      cmp.common.map((l) => [l.path, l.text, [...l.attempts].sort()]),
      [
        ['result.txt', 'good', [alpha.id, beta.id].sort()],
        ['result.txt', 'shared line', [alpha.id, beta.id, broken.id].sort()],
      ],
    );
    assert.equal(cmp.commonCount, 2);
    assert.deepEqual(cmp.commonByFile, [{ path: 'result.txt', lines: 2 }]);

    // Keep This One: exactly one attempt's worktree is left; the others' evidence is saved.
    const kept = await c.keepAttempt(alpha.id);
    assert.deepEqual(kept.failed, []);
    assert.deepEqual(kept.cleaned.map((r) => r.job.id).sort(), [beta.id, broken.id].sort());
    const worktrees = sb.worktrees().filter((w) => w !== sb.repo);
    assert.deepEqual(worktrees, [alpha.worktree]);
    for (const id of [beta.id, broken.id]) {
      const j = await sb.store.read(id);
      assert.equal(j.cleanup?.phase, 'complete');
      assert.ok(j.evidence?.snapshotRef && git(sb.repo, 'rev-parse', j.evidence.snapshotRef));
      assert.ok(j.evidence?.patch && existsSync(j.evidence.patch));
      assert.ok(!existsSync(j.worktree!));
    }
    assert.ok(sb.branches().includes(`paddock/${beta.id}`), 'the branch with a commit found nowhere else is kept');

    // Cleaned attempts still compare, from their snapshots; a forgotten one is counted as missing.
    const after = await c.compare(groupId);
    assert.deepEqual(after.attempts.map((a) => [a.source, a.added]), [['worktree', 3], ['snapshot', 4], ['snapshot', 2]]);
    assert.equal(after.commonCount, 2);
  });

  it('two windows keeping different attempts of one group at once: one is kept, running, the other keep refused', async () => {
    const writer = { writer: { command: 'sh', args: ['-c', 'echo mine > mine.txt; sleep 60'] } };
    const [one, two] = [sb.coordinator({ maxConcurrent: 4, profiles: writer }), sb.coordinator({ maxConcurrent: 4, profiles: writer })];
    await Promise.all([one.ready, two.ready]);
    const { jobs } = await one.startAttempts({ repo: sb.repo, prompt: 'x' }, 3, ['writer']);
    for (const j of jobs) await sb.waitFor(j.id, (r) => r.lifecycle.state === 'running' && existsSync(join(j.worktree!, 'mine.txt')));
    const [a, b] = await Promise.allSettled([one.keepAttempt(jobs[0].id), two.keepAttempt(jobs[1].id)]);
    const kept = [a, b].filter((r) => r.status === 'fulfilled').map((r) => r.value);
    const refused = [a, b].filter((r) => r.status === 'rejected').map((r) => (r.reason as Error).message);
    assert.equal(kept.length, 1, `one keep went through (${JSON.stringify(refused)})`);
    assert.match(refused[0], /^Agent \w+ has been cleaned up; restore it before keeping it\.$/);
    const keptJob = await sb.store.read(kept[0].kept);
    assert.equal(keptJob.cleanup, null, 'the kept attempt was not cleaned up by the other window');
    assert.equal(keptJob.lifecycle.state, 'running', 'and still runs');
    assert.equal(readFileSync(join(keptJob.worktree!, 'mine.txt'), 'utf8'), 'mine\n');
    for (const j of jobs.filter((x) => x.id !== keptJob.id)) assert.equal((await sb.store.read(j.id)).cleanup?.phase, 'complete');
  });

  it("a person's Clean Up of the kept attempt during a keep waits for the keep: no other attempt is cleaned up alongside it", async () => {
    const writer = { writer: { command: 'sh', args: ['-c', 'echo mine > mine.txt; sleep 60'] } };
    const [one, two] = [sb.coordinator({ maxConcurrent: 4, profiles: writer }), sb.coordinator({ maxConcurrent: 4, profiles: writer })];
    await Promise.all([one.ready, two.ready]);
    const { jobs } = await one.startAttempts({ repo: sb.repo, prompt: 'x' }, 3, ['writer']);
    for (const j of jobs) await sb.waitFor(j.id, (r) => r.lifecycle.state === 'running' && existsSync(join(j.worktree!, 'mine.txt')));
    const keeping = one.keepAttempt(jobs[0].id);
    await sb.waitFor(jobs[1].id, (r) => r.cleanup !== null);
    const cleaning = two.cleanup(jobs[0].id); // a person's Clean Up of the kept attempt, in another window
    const report = await keeping;
    await cleaning;
    assert.deepEqual(report.cleaned.map((r) => r.job.id), [jobs[1].id, jobs[2].id]);
    assert.deepEqual(report.failed, []);
    const [kept, last] = [await sb.store.read(jobs[0].id), await sb.store.read(jobs[2].id)];
    assert.equal(last.cleanup?.phase, 'complete');
    assert.equal(kept.cleanup?.phase, 'complete', 'the Clean Up ran, after the keep');
    assert.ok(kept.cleanup.requestedAt >= last.cleanup.updatedAt, `the kept attempt's cleanup began (${kept.cleanup.requestedAt}) after the keep's last one ended (${last.cleanup.updatedAt})`);
  });

  it('a keep that waits in vain for another keep of the group says so in one sentence', async () => {
    const group = 'g0000000000a';
    const other = await groupKeepLock(sb.store, group).acquire(1000); // another window's keep, still under way
    try {
      const err = await heldGroupKeepLock(sb.store, group, 'a0000000000b', 300).then(() => undefined, (e: Error) => e);
      assert.equal(err?.message, `Could not keep agent a0000000000b: another window or process is keeping an attempt of group ${group}; try again once it has finished.`);
      assertOneSentence(err.message);
    } finally {
      await other.release();
    }
  });

  it('Send Prompt to All reaches every running attempt; Stop All in Group stops the rest', async () => {
    const c = sb.coordinator({ maxConcurrent: 4, profiles: PROFILES }, { tickMs: 200 });
    await c.ready;
    const { jobs } = await c.startAttempts({ repo: sb.repo, prompt: 'Answer me' }, 2, ['reader']);
    for (const j of jobs) await sb.waitForState(j.id, ['running', 'waiting']);
    const report = await c.sendToGroup(jobs[0].group!.id, 'the answer is 42');
    assert.deepEqual([...report.sent].sort(), jobs.map((j) => j.id).sort());
    for (const j of jobs) {
      const ended = await sb.waitEnded(j.id);
      assert.equal(ended.lifecycle.state, 'completed');
      assert.equal(readFileSync(join(j.worktree!, 'got.txt'), 'utf8'), 'Answer me\nthe answer is 42\n');
    }
    await assert.rejects(c.sendToGroup(jobs[0].group!.id, 'again'), /No attempt of group .* is running or waiting/);

    const sleepers = await c.startAttempts({ repo: sb.repo, title: 'sleepers', command: ['sleep', '60'] }, 2);
    for (const j of sleepers.jobs) await sb.waitForState(j.id, ['running']);
    const stopped = await c.stopGroup(sleepers.jobs[0].group!.id);
    assert.deepEqual([...stopped.stopped].sort(), sleepers.jobs.map((j) => j.id).sort());
    for (const j of sleepers.jobs) assert.equal((await sb.store.read(j.id)).lifecycle.state, 'cancelled');
  });

  /** Two ended attempts whose checks a leader that died mid-check left running; no coordinator leads. */
  async function attemptsWithDeadCheckRunners(): Promise<JobRecord[]> {
    const first = sb.coordinator({ maxConcurrent: 4 });
    const { jobs } = await first.startAttempts({ repo: sb.repo, command: ['true'] }, 2);
    for (const j of jobs) await sb.waitEnded(j.id);
    // Running, its runner a process that is gone (start time differs).
    const dead = { pid: process.pid, startTime: 1, bootId: 'gone' };
    for (const j of jobs) {
      await sb.store.update(j.id, (r) => ({ ...r, check: { state: 'running', exitCode: null, durationMs: null, at: new Date().toISOString(), summary: '', runner: dead } }));
    }
    // The one-shot coordinator that launched them lets go of the lease, as a CLI command does when it ends.
    first.dispose();
    await first.whenIdle();
    return jobs;
  }

  it('a check whose runner died is run again by the next leader; Stop ends a running check like an agent', async () => {
    await sb.trustCheck('sleep 0.2; echo checked');
    const jobs = await attemptsWithDeadCheckRunners();
    const b = jobs[1];
    const leader = sb.coordinator({ maxConcurrent: 4 }, { tickMs: 200 });
    await leader.ready;
    for (const j of jobs) {
      const done = await waitChecked(j.id);
      assert.equal(done.check!.state, 'passed');
      assert.equal(done.check!.summary, 'checked');
    }

    // A long check, stopped: its process is found by the job's marker and ended; the check is recorded failed.
    const long = leader.check(b.id, { settingCommand: 'echo started; sleep 30' });
    await sb.waitFor(b.id, (j) => j.check?.state === 'running');
    await new Promise((r) => setTimeout(r, 300));
    const report = await leader.stop(b.id);
    assert.equal(report.stopped, true, report.reason ?? '');
    assert.equal(report.action, 'ended-leftovers');
    const check = await long;
    assert.equal(check.state, 'failed');
    assert.match(check.summary, /check killed by SIGTERM/);

    // Stop All reaches a check of an ended agent too, and the rule offers Stop for it (the tree's menu, the pickers).
    const again = leader.check(b.id, { settingCommand: 'echo started; sleep 30' });
    const running = await sb.waitFor(b.id, (j) => j.check?.state === 'running');
    assert.equal(canStop(running), true, 'an ended agent whose check runs can be stopped');
    await new Promise((r) => setTimeout(r, 300));
    const all = await leader.stopAll();
    assert.deepEqual(all.stopped, [b.id]);
    assert.equal((await again).state, 'failed');
    assert.equal(canStop(await sb.store.read(b.id)), false, 'once the check has ended, there is nothing to stop');
  });

  it('the check of a dead runner whose attempt someone else is working on runs again once they let go, with nothing else changing', async () => {
    await sb.trustCheck('echo checked');
    const [held, free] = await attemptsWithDeadCheckRunners();
    const person = await sb.holdJobLockElsewhere(held.id);
    // No periodic pass: only the store's changes, and the held lock's release, bring the leader back.
    const leader = sb.coordinator({ maxConcurrent: 4 }, { tickMs: 600_000 });
    await leader.ready;
    assert.equal((await waitChecked(free.id)).check!.state, 'passed');
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal((await sb.store.read(held.id)).check?.state, 'running', 'run again under a lock someone else held');

    await person.kill();
    const done = await sb.waitFor(held.id, (j) => j.check?.state === 'passed', 10_000);
    assert.equal(done.check!.summary, 'checked');
  });

  it('an attempt whose cleanup has begun (held) is neither checked nor kept: the cleanup would end the one and remove the other', async () => {
    await sb.trustCheck('sleep 0.2; echo checked');
    const c = sb.coordinator({ maxConcurrent: 4 });
    const { jobs } = await c.startAttempts({ repo: sb.repo, command: ['true'] }, 2);
    const [held, other] = await Promise.all(jobs.map((j) => sb.waitEnded(j.id)));
    // A process of the person's (no marker) has its cwd in the worktree: the cleanup stops at removing, to be retried.
    sb.spawnOwned('sleep', ['60'], held.worktree!);
    const report = await c.cleanup(held.id);
    assert.equal(report.job.cleanup?.phase, 'incomplete');
    const job = await sb.store.read(held.id);
    assert.equal(canCheck(job), false, 'Run Check is not offered (menu, picker)');
    assert.equal(canKeep(job), false, 'Keep This One is not offered (menu, picker)');
    await assert.rejects(c.check(held.id), { kind: 'usage', message: /^Agent \w+ is being cleaned up \(incomplete\); a check cannot run in a worktree that is being removed\.$/ });
    await assert.rejects(c.keepAttempt(held.id), { kind: 'usage', message: /is being cleaned up \(incomplete\); it cannot be kept/ });
    assert.equal((await sb.store.read(held.id)).check ?? null, null, 'no check was recorded');
    assert.equal((await sb.store.read(other.id)).cleanup, null, 'the other attempt was not cleaned up');
    // The CLI says the same, in one sentence, exit 2.
    const cli = await runCli(['check', held.id], { cwd: sb.repo, env: sb.env });
    assert.equal(cli.code, 2, cli.stderr);
    assertOneSentence(cli.stderr);
    assert.match(cli.stderr, /being cleaned up \(incomplete\); a check cannot run/);
    // The other rules word a begun cleanup the same way: not "has been cleaned up".
    await assert.rejects(c.retry(held.id), { kind: 'usage', message: /is being cleaned up \(incomplete\); it cannot be retried\.$/ });
  });

  it('a check that runs past checkTimeoutSeconds is ended with everything it started and recorded failed', async () => {
    // The check leaves a grandchild in its own session too: the run's marker finds it.
    writeFileSync(join(sb.repo, '.paddock.json'), JSON.stringify({ check: 'setsid sleep 60 & echo hanging; sleep 60', checkTimeoutSeconds: 1 }));
    git(sb.repo, 'add', '.paddock.json');
    git(sb.repo, 'commit', '-qm', 'hanging check');
    await new RepoConfigTrust(sb.home).allow((await readRepoConfig(sb.repo))!);
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['true'] });
    await sb.waitEnded(job.id);
    const began = Date.now();
    const check = await c.check(job.id);
    assert.equal(check.state, 'failed');
    assert.match(check.summary, /hanging\n\(check timed out after 1 s and was ended\)$/);
    assert.ok(Date.now() - began < 15_000, `ended within the bound and its grace (${Date.now() - began} ms)`);
    assert.deepEqual(await findByEnvMarkerAsync(AGENT_MARKER_ENV, job.id), [], 'nothing of the check is left running');
    // The person's own check command gets the file's bound too.
    const own = await c.check(job.id, { settingCommand: 'sleep 60' });
    assert.match(own.summary, /timed out after 1 s/);
  });

  it('refuses bad input: attempts out of range, more profiles than attempts, no check command', async () => {
    const c = sb.coordinator({ profiles: PROFILES });
    await assert.rejects(c.startAttempts({ repo: sb.repo, command: ['true'] }, 0), { kind: 'usage', message: /from 1 to 16, not 0/ });
    await assert.rejects(c.startAttempts({ repo: sb.repo, command: ['true'] }, 17), { kind: 'usage' });
    await assert.rejects(c.startAttempts({ repo: sb.repo }, 2, ['alpha', 'beta', 'broken']), { kind: 'usage', message: /3 profiles were given for 2 attempts/ });
    assert.deepEqual(await sb.store.list(), [], 'bad input creates nothing');
    const one = await c.start({ repo: sb.repo, command: ['true'] });
    await sb.waitEnded(one.id);
    await assert.rejects(c.check(one.id), { kind: 'usage', message: /No check command is set: set paddock\.checkCommand, or "check" in .*\.paddock\.json/ });
    writeFileSync(join(sb.repo, '.paddock.json'), JSON.stringify({ check: 'true' }));
    await assert.rejects(c.check(one.id), { kind: 'usage', message: /not trusted here: run paddock allow/ });
    // The person's own setting needs no allow.
    const own = sb.coordinator({ checkCommand: 'echo fine' });
    const check = await own.check(one.id, { settingCommand: 'echo fine' });
    assert.equal(check.state, 'passed');
    assert.equal(check.summary, 'fine');
  });
});
