/**
 * Bug 157's review: `git add --sparse` exists from git 2.34 only, and Paddock supports 2.30 and later.
 * A `git` first on PATH that refuses the option as git before 2.34 does (same words, exit 129),
 * then runs the real one: every capture, commit of uncommitted work and Compare Attempts must work.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
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
        'skip=0; sub=',
        'for a in "$@"; do',
        '  if [ $skip = 1 ]; then skip=0; continue; fi',
        '  case "$a" in -c|-C) skip=1;; -*) ;; *) [ -z "$sub" ] && sub=$a;; esac',
        `  if [ "$sub" = add ] && [ "$a" = --sparse ]; then echo "error: unknown option \\\`sparse'" >&2; exit 129; fi`,
        'done',
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
    assert.deepEqual(await sparseAddFlag(wt), [], 'the older git is asked once, and answers no');
    write(wt, 'new.txt', 'agent work\n');
    const { tree } = await worktreeTree(wt);
    assert.match(git(wt, 'ls-tree', '--name-only', tree), /new\.txt/);
    const ev = await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1' });
    assert.equal(git(repo, 'show', `${ev.snapshotSha}:new.txt`), 'agent work');
    await commitAllWork(wt, 'work', 'paddock/job1');
    assert.equal(git(wt, 'show', 'HEAD:new.txt'), 'agent work');
  });

  it('a git that takes --sparse is given it', async () => {
    const repo = sb.repo({ 'README.md': 'hello\n' });
    assert.deepEqual(await sparseAddFlag(repo), ['--sparse']);
  });
});
