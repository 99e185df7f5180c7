/**
 * Bug 157's review: `git add --sparse` exists from git 2.34 only, and Paddock supports 2.30 and later.
 * A `git` first on PATH that refuses the option as git before 2.34 does (same words, exit 129),
 * then runs the real one: every capture, commit of uncommitted work and Compare Attempts must work.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, watch, writeFileSync } from 'node:fs';
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

  it('asks without taking the lock of any worktree\'s index: a `git commit` there at that moment is not refused (bug 157, second review)', async () => {
    const repo = sb.repo({ 'README.md': 'hello\n' });
    const wt = sb.agentWorktree(repo);
    // A PATH not asked before: the probe runs now.
    const fresh = sb.path('freshpath');
    mkdirSync(fresh);
    process.env.PATH = `${fresh}:${process.env.PATH ?? ''}`;
    const gitDir = git(wt, 'rev-parse', '--absolute-git-dir');
    const seen: string[] = [];
    const watcher = watch(gitDir, (_event, name) => seen.push(String(name)));
    try {
      assert.deepEqual(await sparseAddFlag(), ['--sparse']);
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      watcher.close();
    }
    assert.deepEqual(seen.filter((n) => n.startsWith('index')), [], 'nothing written beside the worktree\'s index');
  });
});
