/**
 * The agent's own per-worktree config (`extensions.worktreeConfig`, then `git config --worktree`)
 * must not redirect the capture (bug 104): `core.worktree` naming another folder had that folder's
 * files captured as the agent's (and given back at restore as if the agent had made them), and
 * `core.bare` failed every capture, Clean Up Anyway included. The capture now names the worktree
 * to git itself, which wins over both. And a `core.fsmonitor` (the person's or the agent's) that
 * reported nothing hid every edit from the capture: the worktree was removed with them.
 */
import * as assert from 'node:assert/strict';
import { chmodSync } from 'node:fs';
import { captureEvidence, type CaptureOptions } from '../../../../src/core/git/evidence';
import { restoreWorktree } from '../../../../src/core/git/restore';
import { removeWorktree } from '../../../../src/core/git/worktree';
import { worktreeStateCommit } from '../../../../src/core/git/worktreeState';
import { Sandbox, git, useGitSandbox, write } from './gitTestUtil';
import { assertSameState, treeState } from './treeState';

describe('git: capture of a worktree whose own config points git elsewhere (bug 104)', function () {
  this.timeout(60_000);
  let sb!: Sandbox;
  let repo: string;
  let base: string;
  let wt: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'README.md': 'hello\n', 'd/x.txt': 'x\n' });
    base = git(repo, 'rev-parse', 'main');
    wt = sb.agentWorktree(repo);
  });

  const options = (): CaptureOptions => ({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: base, branch: 'paddock/job1' });

  // A file system monitor that lags, crashed or lies: git skips the look at every file it does not report.
  it('core.fsmonitor whose hook reports nothing changed: the edits are captured all the same', async () => {
    write(sb.path('hook'), 'fsmonitor', '#!/bin/sh\nprintf "token\\0"\n');
    chmodSync(sb.path('hook', 'fsmonitor'), 0o755);
    git(wt, 'config', 'core.fsmonitor', sb.path('hook', 'fsmonitor'));
    git(wt, 'status', '--short'); // the index now says every file is as the monitor last saw it
    write(wt, 'README.md', 'edited by the agent\n');
    assert.equal(git(wt, 'status', '--short'), '', 'git itself no longer sees the edit');
    const ev = await captureEvidence(options());
    assert.equal(git(repo, 'show', `${ev.snapshotRef}:README.md`), 'edited by the agent');
  });

  const cases: { key: string; value: () => string }[] = [
    { key: 'core.worktree', value: () => sb.path('elsewhere') },
    { key: 'core.bare', value: () => 'true' },
  ];
  for (const { key, value } of cases) {
    it(`${key} set by the agent for its worktree alone: the agent's files are captured, nothing else`, async () => {
      write(sb.path('elsewhere'), 'not-the-agents.txt', 'another folder\n');
      write(wt, 'README.md', 'edited\n');
      write(wt, 'new.txt', 'new\n');
      git(wt, 'config', 'extensions.worktreeConfig', 'true');
      git(wt, 'config', '--worktree', key, value());
      const before = treeState(wt);
      const ev = await captureEvidence(options());
      assert.equal(git(repo, 'show', `${ev.snapshotRef}:README.md`), 'edited');
      assert.equal(git(repo, 'show', `${ev.snapshotRef}:new.txt`), 'new');
      assert.equal(git(repo, 'ls-tree', '--name-only', ev.snapshotRef, 'not-the-agents.txt'), '', "another folder's file is not the agent's work");
      assert.equal(ev.summary.archived.files, 0, 'every file of the agent is in the snapshot');
      await removeWorktree(repo, wt);
      const restored = sb.path('restored');
      const result = await restoreWorktree({ repo, snapshotRef: ev.snapshotRef, evidenceDir: sb.path('store', 'evidence'), target: restored, branch: 'paddock/job1' });
      assert.deepEqual(result.problems, []);
      assertSameState(treeState(restored), before);
    });

    it(`${key} set by the agent for its worktree alone: the commit of its uncommitted work (landing's --commit-uncommitted) holds its files`, async () => {
      write(sb.path('elsewhere'), 'not-the-agents.txt', 'another folder\n');
      write(wt, 'README.md', 'edited\n');
      git(wt, 'config', 'extensions.worktreeConfig', 'true');
      git(wt, 'config', '--worktree', key, value());
      const commit = await worktreeStateCommit(wt, 'work');
      assert.equal(git(repo, 'show', `${commit}:README.md`), 'edited');
      assert.equal(git(repo, 'ls-tree', '--name-only', commit, 'not-the-agents.txt'), '');
    });
  }
});
