/**
 * The state of an agent's worktree that Apply to Workspace lands (and commitAllWork looks at first)
 * is what `git add -A` would record (bug 120): under the repository's `core.fileMode=false` an
 * agent's chmod is no change, and under `core.symlinks=false` a symlink checked out as a plain
 * file is still a symlink. The state forced both on, as the exact snapshot does: the chmod was
 * written into the person's file, and a local edit of theirs to it refused the whole apply; a
 * symlink became a plain file.
 */
import * as assert from 'node:assert/strict';
import { chmodSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { applyCommitToWorktree } from '../../../../src/core/git';
import { worktreeStateCommit } from '../../../../src/core/git/worktreeState';
import { git, Sandbox, useGitSandbox, write } from './gitTestUtil';

describe('git: the worktree state to land, as git add records it', function () {
  this.timeout(30_000);
  let sb!: Sandbox;
  useGitSandbox((fresh) => (sb = fresh));

  it("core.fileMode=false: the agent's chmod is no change — an apply takes its edit and leaves the person's edited file alone", async () => {
    const repo = sb.repo({ 'README.md': 'hello\n', 't.sh': 'echo\n' });
    git(repo, 'config', 'core.fileMode', 'false');
    const wt = sb.agentWorktree(repo);
    chmodSync(join(wt, 't.sh'), 0o755);
    write(wt, 'README.md', 'hello\nagent\n');
    const state = await worktreeStateCommit(wt, 'state');
    assert.equal(git(repo, 'ls-tree', state, 't.sh').split(' ')[0], '100644', 'as git add -A records it');
    write(repo, 't.sh', 'echo mine\n');
    const files = await applyCommitToWorktree(repo, state, 'Agent work');
    assert.deepEqual(files, ['README.md']);
    assert.equal(readFileSync(join(repo, 't.sh'), 'utf8'), 'echo mine\n');
    assert.equal(statSync(join(repo, 't.sh')).mode & 0o111, 0, "the person's file keeps its mode");
    assert.equal(readFileSync(join(repo, 'README.md'), 'utf8'), 'hello\nagent\n');
  });

  it('core.fileMode=false and only a chmod: the state is HEAD, nothing to land', async () => {
    const repo = sb.repo({ 'README.md': 'hello\n', 't.sh': 'echo\n' });
    git(repo, 'config', 'core.fileMode', 'false');
    const wt = sb.agentWorktree(repo);
    chmodSync(join(wt, 't.sh'), 0o755);
    assert.equal(await worktreeStateCommit(wt, 'state'), git(wt, 'rev-parse', 'HEAD'));
  });

  it('core.symlinks=false: a symlink checked out as a plain file stays a symlink in the state', async () => {
    const repo = sb.repo({ 'README.md': 'hello\n' });
    write(sb.path('blob'), 'link', 'README.md');
    const blob = git(repo, 'hash-object', '-w', sb.path('blob', 'link'));
    git(repo, 'update-index', '--add', '--cacheinfo', `120000,${blob},link`);
    git(repo, 'commit', '-q', '-m', 'link');
    git(repo, 'config', 'core.symlinks', 'false');
    const wt = sb.agentWorktree(repo);
    assert.equal(statSync(join(wt, 'link')).isFile(), true, 'git checked it out as a plain file');
    write(wt, 'README.md', 'hello\nagent\n');
    const state = await worktreeStateCommit(wt, 'state');
    assert.equal(git(repo, 'ls-tree', state, 'link').split(' ')[0], '120000');
  });
});
