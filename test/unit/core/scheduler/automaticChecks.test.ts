/** The leader's automatic checks: whose runner still lives is judged without stopping the window's event loop. */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { jobLock, type OperationContext } from '../../../../src/core/operations/context';
import { identityOf, ownIdentity } from '../../../../src/core/proc/identity';
import { AutomaticChecks } from '../../../../src/core/scheduler/automaticChecks';
import { readRepoConfig } from '../../../../src/core/repoConfig/paddockJson';
import { RepoConfigTrust, TRUST_FILE } from '../../../../src/core/repoConfig/trust';
import type { JobRecord } from '../../../../src/core/store/schema';
import { PortablePs, watchEventLoop } from '../proc/portablePs';
import { sampleRecord, TestBed, useTestBed } from '../store/helpers';

describe('automatic checks (AutomaticChecks.schedule)', () => {
  let bed!: TestBed;
  useTestBed((testBed: TestBed) => {
    bed = testBed;
  });

  /** An ended attempt whose check is recorded running by `runner`. */
  function attemptCheckedBy(id: string, runner: NonNullable<JobRecord['check']>['runner']): JobRecord {
    const now = new Date().toISOString();
    const job = sampleRecord(id, {}, now);
    job.group = { id: 'grp12345', title: 't', index: 1, size: 2 };
    job.worktree = path.join(bed.home, 'no-such-worktree');
    job.lifecycle = { ...job.lifecycle, state: 'completed', endedAt: now };
    job.check = { state: 'running', exitCode: null, durationMs: null, at: now, summary: '', runner };
    return job;
  }

  it('on the portable backend, a pass over checks run by live processes reads ps once, without blocking; a dead runner\'s check runs again', async function () {
    const ps = new PortablePs(fs.mkdtempSync(path.join(bed.home, 'shims-')));
    if (!ps.real) return this.skip();
    const runs = path.join(bed.home, 'ps-runs');
    const runners = Array.from({ length: 5 }, () => spawn('sleep', ['60'], { stdio: 'ignore' }));
    try {
      ps.useBackend();
      const jobs = runners.map((runner, i) => {
        const identity = identityOf(runner.pid!);
        assert.ok(identity, 'the runner is seen by ps');
        return attemptCheckedBy(`live${i}00`, identity);
      });
      const gone = { ...identityOf(runners[0].pid!)!, startTime: 1 };
      jobs.push(attemptCheckedBy('gone000', gone));
      const started: Promise<unknown>[] = [];
      const ctx = { store: bed.store(), log: () => undefined } as unknown as OperationContext;
      const checks = new AutomaticChecks(ctx, {
        takeOrWatch: (id) => jobLock(ctx.store, id).tryAcquire(),
        track: <T>(p: Promise<T>) => {
          started.push(p);
          return p;
        },
      });
      ownIdentity(); // what a process reads once about itself, read before the slow ps
      ps.shim(`echo "$*" >> '${runs}'; sleep 0.3`);
      const pass = await watchEventLoop(() => checks.schedule(jobs));
      const ran = fs.readFileSync(runs, 'utf8').trim().split('\n');
      await Promise.all(started);
      assert.equal(ran.length, 1, `one ps for the whole pass, not one per runner: ${ran.join(' | ')}`);
      assert.ok(pass.elapsedMs >= 300, 'the pass asked the slow ps');
      assert.ok(pass.longestGapMs < 300, `the pass stopped the event loop for ${pass.longestGapMs} ms`);
      assert.equal(started.length, 1, 'only the check whose runner is gone runs again');
    } finally {
      ps.restore();
      for (const runner of runners) runner.kill('SIGKILL');
    }
  });

  // Found by review of bug 91: an attempt the leader found an untrusted (or no) check command for was
  // never looked at again by that leader, though `paddock allow` trusted the file since.
  it('looks again at an attempt found with an untrusted check command once the file is allowed, or with none once one is set', async () => {
    const untrusted = attemptCheckedBy('untr000', null);
    untrusted.repo = fs.mkdtempSync(path.join(bed.home, 'repo-'));
    fs.writeFileSync(path.join(untrusted.repo, '.paddock.json'), JSON.stringify({ check: 'echo hi' }));
    const none = attemptCheckedBy('none000', null);
    none.repo = fs.mkdtempSync(path.join(bed.home, 'bare-'));
    for (const j of [untrusted, none]) {
      j.check = null;
      j.settings = { ...j.settings, checkCommand: null };
    }
    let tracked: Promise<unknown>[] = [];
    const ctx = { store: bed.store(), log: () => undefined } as unknown as OperationContext;
    const checks = new AutomaticChecks(ctx, {
      takeOrWatch: (id) => jobLock(ctx.store, id).tryAcquire(),
      track: <T>(p: Promise<T>) => (tracked.push(p), p),
    });
    /** How many checks a pass started (each ends at once here: trusted, it fails to start in this bare context). */
    const pass = async () => {
      tracked = [];
      await checks.schedule([untrusted, none]);
      await Promise.all(tracked);
      return tracked.length;
    };
    assert.equal(await pass(), 2);
    assert.equal(await pass(), 0, 'nothing changed: neither looked at again');
    await new RepoConfigTrust(bed.home).allow((await readRepoConfig(untrusted.repo))!);
    assert.equal(await pass(), 2, 'allowed since: looked at again (both: the allow list both were judged on changed)');
    assert.equal(await pass(), 1, 'only the one trusted now (not started here: tried on every pass)');
    assert.equal(checks.foundNothingToRun(none), true);
    fs.writeFileSync(path.join(none.repo, '.paddock.json'), JSON.stringify({ check: 'echo hi' }));
    assert.equal(await pass(), 2, 'a file set since: looked at again (and the one not started, again)');
  });

  // Bug 126 said an automatic check the unreadable allow list kept from running is tried again on a
  // later pass, not remembered as untrusted: read as not allowed, it was never looked at again while
  // the list stayed as it was (a list denied for want of descriptors changes nothing on disk).
  it('tries again, on every pass, a check an allow list that could not be read kept from running', async () => {
    const job = attemptCheckedBy('unrd000', null);
    job.check = null;
    job.settings = { ...job.settings, checkCommand: null };
    job.repo = fs.mkdtempSync(path.join(bed.home, 'repo-'));
    fs.writeFileSync(path.join(job.repo, '.paddock.json'), JSON.stringify({ check: 'echo hi' }));
    await new RepoConfigTrust(bed.home).allow((await readRepoConfig(job.repo))!);
    const logged: string[] = [];
    const ctx = { store: bed.store(), log: (line: string) => logged.push(line) } as unknown as OperationContext;
    let tracked: Promise<unknown>[] = [];
    const checks = new AutomaticChecks(ctx, {
      takeOrWatch: (id) => jobLock(ctx.store, id).tryAcquire(),
      track: <T>(p: Promise<T>) => (tracked.push(p), p),
    });
    /** What a pass logged of the check it started, or 'not started'. */
    const pass = async () => {
      tracked = [];
      logged.length = 0;
      await checks.schedule([job]);
      await Promise.all(tracked);
      return tracked.length === 0 ? 'not started' : logged.join(' | ');
    };
    // The list out of its place, a loop of symbolic links standing there: it cannot be read.
    const list = path.join(bed.home, TRUST_FILE);
    fs.renameSync(list, `${list}.away`);
    fs.symlinkSync(TRUST_FILE, list);
    assert.match(await pass(), /allow list .* could not be read/);
    assert.match(await pass(), /allow list .* could not be read/, 'the list unchanged: looked at again all the same');
    fs.rmSync(list);
    fs.renameSync(`${list}.away`, list);
    const after = await pass();
    assert.notEqual(after, 'not started');
    assert.doesNotMatch(after, /could not be read|not trusted/, 'the list back: the allowed check goes on to run');
  });
});
