import * as assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { GIT_MAX_CONCURRENT, firstLine, gitCommandOf, gitProcessesRunning, runGit } from '../../../../src/core/git/runGit';

/**
 * A `git` first on PATH that behaves like one blocked by a slow hook or
 * fsmonitor: it records that it ran and sleeps (in a child of its own, which
 * holds its pipes open, as a hook would).
 */
function fakeGit(dir: string, seconds: number): NodeJS.ProcessEnv {
  const bin = path.join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  const script = [
    '#!/bin/sh',
    `mkdir "${dir}/running/$$"`,
    `ls "${dir}/running" | wc -l >> "${dir}/counts"`,
    `echo $$ >> "${dir}/pids"`,
    `sleep ${seconds} &`,
    `echo $! >> "${dir}/pids"`,
    'wait',
    `rmdir "${dir}/running/$$"`,
  ].join('\n');
  mkdirSync(path.join(dir, 'running'), { recursive: true });
  writeFileSync(path.join(bin, 'git'), `${script}\n`);
  chmodSync(path.join(bin, 'git'), 0o755);
  return { PATH: `${bin}:${process.env.PATH}` };
}

/** Running, not merely an unreaped zombie (a container's pid 1 may never reap the orphaned sleep). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) [ZX]/.test(stat);
  } catch {
    return false;
  }
}

const lines = (file: string) => readFileSync(file, 'utf8').trim().split('\n').filter(Boolean);

describe('git/runGit: timeout, cancellation and the cap on git processes', function () {
  this.timeout(30_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'pd-rungit-'));
  });
  afterEach(() => {
    for (const pid of existsLines(path.join(dir, 'pids'))) if (alive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('a git that hangs is stopped after its timeout, with the hook it started, in one sentence', async () => {
    const env = fakeGit(dir, 60);
    const started = Date.now();
    await assert.rejects(runGit(['status'], { cwd: dir, env, timeoutMs: 500 }), /git status in .* did not finish within 1 s and was stopped\./);
    assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
    await new Promise((r) => setTimeout(r, 200));
    for (const pid of lines(path.join(dir, 'pids'))) assert.equal(alive(Number(pid)), false, `pid ${pid} still runs`);
    assert.equal(gitProcessesRunning(), 0, 'its slot is free again');
  });

  it('an aborted signal stops a running git, and a queued call never starts', async () => {
    const env = fakeGit(dir, 60);
    const controller = new AbortController();
    const running = Array.from({ length: GIT_MAX_CONCURRENT }, () => runGit(['status'], { cwd: dir, env, signal: controller.signal }));
    const queued = runGit(['log'], { cwd: dir, env, signal: controller.signal });
    await waitUntil(() => existsLines(path.join(dir, 'counts')).length === GIT_MAX_CONCURRENT);
    controller.abort();
    for (const call of [...running, queued]) await assert.rejects(call, /was cancelled\./);
    assert.equal(existsLines(path.join(dir, 'counts')).length, GIT_MAX_CONCURRENT, 'the queued call never ran');
    await new Promise((r) => setTimeout(r, 200));
    for (const pid of lines(path.join(dir, 'pids'))) assert.equal(alive(Number(pid)), false, `pid ${pid} still runs`);
  });

  it(`at most ${GIT_MAX_CONCURRENT} git processes run at once; the rest wait their turn and all finish`, async () => {
    const env = fakeGit(dir, 0.4);
    const calls = Array.from({ length: GIT_MAX_CONCURRENT + 6 }, () => runGit(['status'], { cwd: dir, env }));
    await Promise.all(calls);
    const counts = lines(path.join(dir, 'counts')).map(Number);
    assert.equal(counts.length, GIT_MAX_CONCURRENT + 6);
    assert.ok(Math.max(...counts) <= GIT_MAX_CONCURRENT, `seen ${Math.max(...counts)} at once`);
  });
});

function existsLines(file: string): number[] {
  try {
    return lines(file).map(Number);
  } catch {
    return [];
  }
}

async function waitUntil(predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('git/runGit: what a failure says (bug 88, found by review)', () => {
  it('names the git command past the -c settings before it', () => {
    assert.equal(gitCommandOf(['-c', 'core.fileMode=true', '-c', 'core.symlinks=true', 'checkout-index', '--all']), 'checkout-index');
    assert.equal(gitCommandOf(['-C', '/r', 'status']), 'status');
    assert.equal(gitCommandOf(['add', '-A']), 'add');
  });

  it("a filter that failed: its side and the file git names, not only the first error line (git's own lines)", () => {
    const smudge = ['error: cannot run nope-smudge: No such file or directory', "error: cannot fork to run external filter 'nope-smudge'", "error: external filter 'nope-smudge' failed", 'fatal: f1.bad: smudge filter bad failed'].join('\n');
    assert.equal(firstLine(smudge), "the smudge filter 'bad' failed on f1.bad (cannot run nope-smudge: No such file or directory)");
    const clean = ["git-lfs clean -- 'a: b.bad': 1: git-lfs: not found", "error: external filter 'git-lfs clean -- %f' failed 127", "error: external filter 'git-lfs clean -- %f' failed", "fatal: a: b.bad: clean filter 'bad' failed"].join('\n');
    assert.equal(firstLine(clean), "the clean filter 'bad' failed on a: b.bad (external filter 'git-lfs clean -- %f' failed 127)");
  });

  it("a line git ends in ';' (its advice follows) or '.' ends without it", () => {
    const stderr = "fatal: '/x/copy' is a missing but already registered worktree;\nuse 'add -f' to override, or 'prune' or 'remove' to clear";
    assert.equal(firstLine(stderr), "'/x/copy' is a missing but already registered worktree");
    // Nor its closing '.': the callers' sentences end themselves ("…working tree..").
    assert.equal(firstLine("fatal: ambiguous argument 'x': unknown revision or path not in the working tree.\nUse '--' to separate paths"), "ambiguous argument 'x': unknown revision or path not in the working tree");
  });
});
