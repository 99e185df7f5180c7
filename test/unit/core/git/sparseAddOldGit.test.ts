/**
 * Bug 157's review: `git add --sparse` exists from git 2.34 only, and Paddock supports 2.30 and later.
 * A `git` first on PATH that refuses the option as git before 2.34 does (same words, exit 129),
 * then runs the real one: every capture, commit of uncommitted work and Compare Attempts must work.
 */
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { captureEvidence } from '../../../../src/core/git/evidence';
import { commitAllWork } from '../../../../src/core/git';
import { worktreeTree } from '../../../../src/core/attempts/attemptTree';
import { sparseAddFlag } from '../../../../src/core/git/sparseAdd';
import { git, Sandbox, useGitSandbox, write } from './gitTestUtil';

describe('git add --sparse on a git before 2.34 (bug 157 review)', function () {
  this.timeout(60_000);
  let sb!: Sandbox;
  useGitSandbox((fresh) => {
    sb = fresh;
  });

  /** A git on PATH whose `add` has no --sparse: the real git behind it, found on the PATH before. */
  function olderGit(): void {
    const bin = sb.path('oldgit');
    mkdirSync(bin);
    const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    writeFileSync(
      path.join(bin, 'git'),
      [
        '#!/bin/sh',
        'skip=0; sub=; h=',
        'for a in "$@"; do',
        '  if [ $skip = 1 ]; then skip=0; continue; fi',
        '  case "$a" in -c|-C) skip=1;; -h) h=1;; -*) ;; *) [ -z "$sub" ] && sub=$a;; esac',
        `  if [ "$sub" = add ] && [ "$a" = --sparse ]; then echo "error: unknown option \\\`sparse'" >&2; exit 129; fi`,
        'done',
        // Its `add -h` lists no --sparse, as git before 2.34.
        `if [ "$sub" = add ] && [ "$h" = 1 ]; then '${real}' add -h | grep -v -- --sparse; exit 129; fi`,
        `exec '${real}' "$@"`,
        '',
      ].join('\n'),
    );
    chmodSync(path.join(bin, 'git'), 0o755);
    process.env.PATH = `${bin}:${process.env.PATH ?? ''}`;
  }

  it('captures a worktree, commits its work and reads it for Compare Attempts', async () => {
    const repo = sb.repo({ 'README.md': 'hello\n' });
    const wt = sb.agentWorktree(repo);
    olderGit();
    assert.deepEqual(await sparseAddFlag(), [], 'the older git is asked once, and answers no');
    write(wt, 'new.txt', 'agent work\n');
    const { tree } = await worktreeTree(repo, wt);
    assert.match(git(wt, 'ls-tree', '--name-only', tree), /new\.txt/);
    const ev = await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1' });
    assert.equal(git(repo, 'show', `${ev.snapshotSha}:new.txt`), 'agent work');
    await commitAllWork(wt, 'work', 'paddock/job1');
    assert.equal(git(wt, 'show', 'HEAD:new.txt'), 'agent work');
  });

  it('a git that takes --sparse is given it', async () => {
    sb.repo({ 'README.md': 'hello\n' });
    assert.deepEqual(await sparseAddFlag(), ['--sparse']);
  });

  it('asks `git add -h` outside any repository, so it takes no worktree\'s index.lock: a `git commit` there at that moment is not refused (bug 157, second and third review)', async () => {
    sb.repo({ 'README.md': 'hello\n' });
    // A `git` first on a PATH not asked before, logging where it runs and what it is asked.
    const bin = sb.path('logging');
    mkdirSync(bin);
    const log = sb.path('git.log');
    const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    writeFileSync(path.join(bin, 'git'), `#!/bin/sh\nprintf '%s\\t%s\\n' "$PWD" "$*" >> '${log}'\nexec '${real}' "$@"\n`);
    chmodSync(path.join(bin, 'git'), 0o755);
    process.env.PATH = `${bin}:${process.env.PATH ?? ''}`;
    assert.deepEqual(await sparseAddFlag(), ['--sparse']);
    const calls = readFileSync(log, 'utf8').trim().split('\n').map((l) => l.split('\t') as [string, string]);
    assert.equal(calls.length, 1, 'asked once');
    const [cwd, args] = calls[0]!;
    assert.match(args, /(?:^| )add -h$/, 'only the usage: no index read, no lock taken');
    const inRepo = spawnSync(real, ['rev-parse', '--git-dir'], { cwd, env: { PATH: process.env.PATH, HOME: process.env.HOME }, encoding: 'utf8' });
    assert.notEqual(inRepo.status, 0, `asked in ${cwd}, which is in a repository (${inRepo.stdout.trim()})`);
  });

  it('asks the git on the PATH its answer is kept for, though PATH changed before the probe ran (bug 157, third review)', async () => {
    sb.repo({ 'README.md': 'hello\n' });
    const before = process.env.PATH ?? '';
    olderGit();
    const older = process.env.PATH ?? '';
    const pending = sparseAddFlag(); // kept for the older git's PATH
    process.env.PATH = before; // another part of the process (an extension) changes PATH meanwhile
    await pending;
    process.env.PATH = older;
    assert.deepEqual(await sparseAddFlag(), [], 'the older git is not given --sparse');
  });

  it('with PATH unset when asked, asks the git found without one, though PATH is set before the probe runs (bug 157, fourth review)', async function () {
    // What the git found without a PATH says (Node's own lookup, as the probe's spawn).
    const bare = spawnSync('git', ['add', '-h'], { cwd: tmpdir(), env: {}, encoding: 'utf8' });
    if (bare.error || !/usage: git add/.test(`${bare.stdout}${bare.stderr}`)) this.skip();
    const expected = /(?:^|\s)--sparse\b/m.test(`${bare.stdout}\n${bare.stderr}`) ? ['--sparse'] : [];
    sb.repo({ 'README.md': 'hello\n' });
    const saved = process.env.PATH;
    try {
      olderGit();
      const older = process.env.PATH;
      delete process.env.PATH;
      const pending = sparseAddFlag(); // kept for no PATH
      process.env.PATH = older; // set meanwhile, to the older git's
      await pending;
      delete process.env.PATH;
      assert.deepEqual(await sparseAddFlag(), expected, 'the answer kept for no PATH is the git found without one');
    } finally {
      process.env.PATH = saved;
    }
  });
});
