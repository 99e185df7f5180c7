/**
 * An apply that git stops half-way — a write fails after others were made, which git's own check
 * before writing cannot foresee — is undone: every file of the main worktree and its index are
 * byte for byte as before, and the refusal says nothing was changed. A new submodule's folder is
 * removed only when the apply made it: the person's own empty folder at its path stays (bug 117).
 */
import * as assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { applyCommitToWorktree } from '../../../../src/core/git';
import type { PaddockError } from '../../../../src/core/common/errors';
import { git, Sandbox, useGitSandbox, write } from './gitTestUtil';
import { assertSameState, treeState } from './treeState';

describe('git: an apply stopped half-way is undone', function () {
  this.timeout(30_000);
  let sb!: Sandbox;
  useGitSandbox((fresh) => (sb = fresh));

  it('puts back edited, deleted and type-changed files and removes the new ones and their folders', async () => {
    const repo = sb.repo({ 'README.md': 'hello\n', 'dir/f': 'f\n', 'dir/g': 'g\n', 'link': 'a file, then a folder\n', 'tool.sh': 'echo hi\n' });
    const wt = sb.path('agent-wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/agent', wt, 'main');
    write(wt, 'README.md', 'hello\nagent\n');
    git(wt, 'rm', '-rq', 'dir', 'link');
    write(wt, 'dir', 'now a file\n');
    write(wt, 'link/inside.txt', 'now a folder\n');
    write(wt, 'new/deep/file.txt', 'new\n');
    git(wt, 'add', '-A');
    git(wt, 'update-index', '--chmod=+x', 'tool.sh');
    // A name no file system takes (over 255 bytes): git applies everything before it, then fails on it.
    const blob = git(wt, 'hash-object', '-w', '--stdin');
    git(wt, 'update-index', '--add', '--cacheinfo', `100644,${blob},zzz/${'n'.repeat(300)}`);
    git(wt, 'commit', '-q', '-m', 'agent');
    const agentTip = git(wt, 'rev-parse', 'HEAD');
    write(repo, 'untouched.txt', 'a local file the patch does not touch\n');
    const before = { files: treeState(repo), index: readFileSync(path.join(repo, '.git', 'index')).toString('base64') };
    await assert.rejects(applyCommitToWorktree(repo, agentTip, 'Agent work'), (e: PaddockError) => {
      assert.match(e.message, /File name too long/);
      assert.match(e.message, /nothing was changed\.$/);
      return true;
    });
    assertSameState(treeState(repo), before.files);
    assert.equal(readFileSync(path.join(repo, '.git', 'index')).toString('base64'), before.index, 'the index is byte for byte as it was');
  });

  it('a new submodule or file where the person had an empty folder: the folder stays or comes back, the new submodule\'s folder goes (bug 117)', async () => {
    const repo = sb.repo({ 'README.md': 'hello\n' });
    const wt = sb.path('agent-wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/agent', wt, 'main');
    const modules = ['theirs', 'fresh'].map((p) => `[submodule "${p}"]\n\tpath = ${p}\n\turl = https://example.com/${p}.git\n`).join('');
    write(wt, '.gitmodules', modules);
    write(wt, 'README.md', 'hello\nagent\n');
    write(wt, 'spot', 'a file where the person has an empty folder\n');
    git(wt, 'add', '.gitmodules', 'README.md', 'spot');
    for (const p of ['theirs', 'fresh']) git(wt, 'update-index', '--add', '--cacheinfo', `160000,${'2'.repeat(40)},${p}`);
    git(wt, 'commit', '-q', '-m', 'agent adds submodules');
    const agentTip = git(wt, 'rev-parse', 'HEAD');
    // The person's empty folders (git sees nothing there; git apply writes its file over the one); the apply writes, then staging the gitlinks meets a held index lock.
    for (const dir of ['theirs', 'spot']) mkdirSync(path.join(repo, dir));
    chmodSync(path.join(repo, 'spot'), 0o750);
    const before = treeState(repo);
    const lock = path.join(repo, '.git', 'index.lock');
    writeFileSync(lock, '');
    await assert.rejects(applyCommitToWorktree(repo, agentTip, 'Agent work'), (e: PaddockError) => {
      assert.match(e.message, /nothing was changed\.$/);
      return true;
    });
    unlinkSync(lock);
    assertSameState(treeState(repo), before);
  });
});
