/**
 * A linked worktree the agent made inside its own keeps its registration when its index holds a
 * staged change, whatever the person's `submodule.<name>.ignore` says (bug 97's class, found by
 * review): `diff-index` under `ignore=all` said a staged submodule commit was no change, and the
 * registration — the only place that staged commit was — was forgotten with the agent's worktree.
 */
import * as assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { forgetInnerWorktrees } from '../../../../src/core/git/innerForget';
import { git, Sandbox, useGitSandbox } from './gitTestUtil';

describe('git: an inner worktree with a staged submodule commit is not forgotten', function () {
  this.timeout(30_000);
  let sb!: Sandbox;
  useGitSandbox((fresh) => (sb = fresh));

  it('ignore = all for the submodule (.gitmodules and config): its staged gitlink counts as staged, and its registration stays', async () => {
    const repo = sb.repo({ 'README.md': 'hello\n', '.gitmodules': '[submodule "sub"]\n\tpath = sub\n\turl = https://example.com/sub.git\n\tignore = all\n' });
    git(repo, 'update-index', '--add', '--cacheinfo', `160000,${'1'.repeat(40)},sub`);
    git(repo, 'commit', '-q', '-m', 'submodule');
    git(repo, 'config', 'submodule.sub.ignore', 'all');
    const agent = sb.path('agent-wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/agent', agent, 'main');
    const inner = join(agent, 'inner');
    git(agent, 'worktree', 'add', '-q', '--detach', inner, 'main');
    git(inner, 'update-index', '--cacheinfo', `160000,${'2'.repeat(40)},sub`);
    rmSync(agent, { recursive: true, force: true });
    assert.deepEqual(await forgetInnerWorktrees(repo, agent), ['inner']);
    assert.match(git(repo, 'worktree', 'list', '--porcelain'), /inner/);
    assert.equal(existsSync(agent), false);
  });
});
