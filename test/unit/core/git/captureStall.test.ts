/**
 * A capture's `add` that is stopped (SIGSTOP) or waits on a clean filter that never answers makes
 * no progress at all; before bug 138 it held the cleanup for its whole bound (600 s) before anything
 * was learnt (bug 124 left it so). runGit now stops a git whose process tree has made no progress
 * (nothing running, no CPU time used) for `stallMs` (proc/stallWatch.ts), as at its bound; a slow
 * one that works is let run. The bound stays at its ten minutes here; the quiet time is made short.
 */
import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as path from 'node:path';
import { stageEverything } from '../../../../src/core/git/snapshotIndex';
import { GIT_BULK_TIMEOUT_MS, GIT_STALL_MS, GIT_TIMEOUT_MS, isGitTimeout, NO_HOOKS_ENV, runGit, stallBoundOf } from '../../../../src/core/git/runGit';
import { watchForStall } from '../../../../src/core/proc/stallWatch';
import { useProcessBackend } from '../proc/processBackend';
import { Sandbox, git, useGitSandbox, write } from './gitTestUtil';

for (const backend of ['proc', 'portable'] as const) {
  describe(`git: a capture's add that makes no progress is stopped long before its bound (bug 138, ${backend} backend)`, function () {
    this.timeout(60_000);
    useProcessBackend(backend);
    let sb!: Sandbox;
    let repo: string;
    let wt: string;
    useGitSandbox((fresh) => {
      sb = fresh;
      repo = sb.repo({ 'README.md': 'hello\n', '.gitattributes': '*.h filter=f\n' });
      wt = sb.agentWorktree(repo);
    });

    const stage = (stallMs: number) => {
      const tempIndex = sb.path('scratch-index');
      const env = { GIT_INDEX_FILE: tempIndex, GIT_WORK_TREE: wt, ...NO_HOOKS_ENV };
      const realIndex = path.resolve(wt, git(wt, 'rev-parse', '--git-path', 'index'));
      const inScratch = (spec: string) => execFileSync('git', ['show', spec], { cwd: wt, env: { ...process.env, GIT_INDEX_FILE: tempIndex }, encoding: 'utf8' });
      return { run: () => stageEverything({ worktree: wt, realIndex, tempIndex, env, nestedRepos: [], addStallMs: stallMs }), inScratch };
    };

    it('a clean filter that stops git itself (SIGSTOP): the add is stopped, the file archived, the rest staged', async () => {
      // Stops the git that runs it, then waits for input that a stopped git never sends.
      git(repo, 'config', 'filter.f.clean', 'kill -STOP $PPID; cat');
      write(wt, 'a.h', 'one\n');
      write(wt, 'README.md', 'edited\n');
      write(wt, 'new.txt', 'new\n');
      const { run, inScratch } = stage(2000);
      const started = Date.now();
      const refused = await run();
      assert.ok(Date.now() - started < 30_000, `took ${Date.now() - started} ms`);
      assert.deepEqual(refused, ['a.h']);
      assert.equal(inScratch(':README.md'), 'edited\n');
      assert.equal(inScratch(':new.txt'), 'new\n');
    });

    it('a clean filter that sleeps for ever: stopped after the quiet time, not the ten-minute bound', async () => {
      git(repo, 'config', 'filter.f.clean', 'sleep 50');
      write(wt, 'a.h', 'one\n');
      write(wt, 'README.md', 'edited\n');
      const { run, inScratch } = stage(2000);
      const started = Date.now();
      const refused = await run();
      assert.ok(Date.now() - started < 30_000, `took ${Date.now() - started} ms`);
      assert.deepEqual(refused, ['a.h']);
      assert.equal(inScratch(':README.md'), 'edited\n');
    });

    it('a clean filter that works slowly, past the quiet time, is let finish', async () => {
      // Busy for 5 s (CPU, processes running), then passes its input through changed.
      git(repo, 'config', 'filter.f.clean', 'end=$(($(date +%s)+5)); while [ "$(date +%s)" -lt "$end" ]; do :; done; sed s/o/0/g');
      write(wt, 'a.h', 'one\n');
      const { run, inScratch } = stage(1500);
      const refused = await run();
      assert.deepEqual(refused, []);
      assert.equal(inScratch(':a.h'), '0ne\n', 'staged through the filter');
    });

    it('a clean filter that works by starting short processes, past the quiet time, is let finish', async () => {
      // Next to no CPU of its own, and asleep at most looks: the processes it starts are its progress
      // (on the portable backend, ps counts CPU in whole seconds).
      git(repo, 'config', 'filter.f.clean', 'i=0; while [ $i -lt 30 ]; do sleep 0.1; i=$((i+1)); done; sed s/o/0/g');
      write(wt, 'a.h', 'one\n');
      const { run, inScratch } = stage(1500);
      const refused = await run();
      assert.deepEqual(refused, []);
      assert.equal(inScratch(':a.h'), '0ne\n', 'staged through the filter');
    });

    it('runGit: a stopped git is failed as at its bound, naming the stall', async () => {
      git(repo, 'config', 'filter.f.clean', 'kill -STOP $PPID; cat');
      write(wt, 'x.h', 'x\n');
      const started = Date.now();
      const err = await runGit(['add', 'x.h'], { cwd: wt, timeoutMs: GIT_BULK_TIMEOUT_MS, stallMs: 1000 }).then(() => null, (e: unknown) => e);
      assert.ok(err instanceof Error && isGitTimeout(err), String(err));
      assert.match(err.message, /made no progress for 1 s/);
      assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
    });
  });
}

describe('git: which calls are watched for a stall (bug 138)', () => {
  it('every call bounded past the default bound (one that copies a whole worktree), unless told', () => {
    assert.equal(stallBoundOf({ cwd: '.', timeoutMs: GIT_BULK_TIMEOUT_MS }), GIT_STALL_MS);
    assert.equal(stallBoundOf({ cwd: '.' }), 0);
    assert.equal(stallBoundOf({ cwd: '.', timeoutMs: GIT_TIMEOUT_MS }), 0);
    assert.equal(stallBoundOf({ cwd: '.', timeoutMs: 0 }), 0);
    assert.equal(stallBoundOf({ cwd: '.', timeoutMs: GIT_BULK_TIMEOUT_MS, stallMs: 0 }), 0);
    assert.equal(stallBoundOf({ cwd: '.', stallMs: 500 }), 500);
  });
});

describe('stall watch: quiet time is measured on a monotonic clock (bug 138)', function () {
  this.timeout(30_000);
  it('a wall clock stepped forward (a resume from suspend, NTP) is no quiet time', async () => {
    const child = spawn('sleep', ['20'], { detached: true, stdio: 'ignore' });
    const realNow = Date.now;
    let stalled = false;
    const unwatch = watchForStall({ sid: child.pid!, quietMs: 10_000, onStall: () => (stalled = true) });
    try {
      await new Promise((r) => setTimeout(r, 1000));
      Date.now = () => realNow() + 120_000; // the step
      // Two looks (every 2.5 s) after the step; before, the first one judged 120 s of quiet.
      await new Promise((r) => setTimeout(r, 5500));
      assert.equal(stalled, false, 'judged stalled after 6.5 s of a 10 s quiet time');
    } finally {
      Date.now = realNow;
      unwatch();
      child.kill('SIGKILL');
    }
  });
});
