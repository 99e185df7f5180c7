/**
 * Bug 104, as a class: every git Paddock runs in an agent's worktree, not the capture alone, must
 * read and write that worktree's files whatever the agent set for it with `git config --worktree`
 * (`core.worktree` naming another folder, `core.bare`). runGit names the working tree itself
 * (workTreePin.ts). Before, a landing's `--commit-uncommitted` committed the other folder (deleting
 * the agent's files from its branch), the safety checks' list of local changes read it, and a
 * check's guard compared it, so a check that changed the agent's files went unseen.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { commitAllWork } from '../../../../src/core/git/commitWork';
import { localChanges } from '../../../../src/core/git/checkout';
import { worktreeTree } from '../../../../src/core/attempts/attemptTree';
import { advanceBranch } from '../../../../src/core/git/advanceBranch';
import { Sandbox, git, useGitSandbox, write } from './gitTestUtil';

describe("git: every call in an agent's worktree reads that worktree, whatever its own config says (bug 104)", function () {
  this.timeout(60_000);
  let sb!: Sandbox;
  let repo: string;
  let wt: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'README.md': 'hello\n', 'd/x.txt': 'x\n' });
    wt = sb.agentWorktree(repo);
  });

  const cases: { key: string; value: () => string }[] = [
    { key: 'core.worktree', value: () => sb.path('elsewhere') },
    { key: 'core.bare', value: () => 'true' },
  ];
  /** The agent's edit and new file, another folder's file, and the agent's own setting. */
  function agentSets(key: string, value: string): void {
    write(sb.path('elsewhere'), 'not-the-agents.txt', 'another folder\n');
    write(wt, 'README.md', 'edited\n');
    write(wt, 'new.txt', 'new\n');
    git(wt, 'config', 'extensions.worktreeConfig', 'true');
    git(wt, 'config', '--worktree', key, value);
  }
  const names = (tree: string): string[] => git(repo, 'ls-tree', '-r', '--name-only', tree).split('\n');

  for (const { key, value } of cases) {
    it(`${key}: the commit of the uncommitted work (landing's --commit-uncommitted) holds the agent's files, not another folder's`, async () => {
      agentSets(key, value());
      const head = await commitAllWork(wt, 'work', 'paddock/job1');
      assert.deepEqual(names(head), ['README.md', 'd/x.txt', 'new.txt']);
      assert.equal(git(repo, 'show', `${head}:README.md`), 'edited');
    });

    it(`${key}: the local changes the safety checks read are the agent's`, async () => {
      agentSets(key, value());
      const changes = await localChanges(wt, 'all');
      assert.deepEqual(changes.tracked, ['README.md']);
      assert.deepEqual(changes.untracked, ['new.txt']);
    });

    it(`${key}: a check's guard takes the tree of the agent's files`, async () => {
      agentSets(key, value());
      const { tree } = await worktreeTree(repo, wt);
      assert.deepEqual(names(tree), ['README.md', 'd/x.txt', 'new.txt']);
      assert.equal(git(repo, 'show', `${tree}:README.md`), 'edited');
    });
  }

  it("core.worktree set in the shared config (a plain `git config` the agent ran): a landing still writes the person's own checkout", async () => {
    write(wt, 'b.txt', 'the agent\'s file\n');
    git(wt, 'add', 'b.txt');
    git(wt, 'commit', '-q', '-m', 'b');
    // Without --worktree it goes to the shared config: linked worktrees ignore it, the main checkout obeys it.
    git(wt, 'config', 'core.worktree', sb.path('elsewhere'));
    write(sb.path('elsewhere'), 'README.md', 'hello\n');
    const from = git(repo, 'rev-parse', 'main');
    await advanceBranch(repo, 'main', from, git(repo, 'rev-parse', 'paddock/job1'), 'paddock ff: test');
    assert.equal(readFileSync(path.join(repo, 'b.txt'), 'utf8'), "the agent's file\n");
    assert.equal(existsSync(sb.path('elsewhere', 'b.txt')), false);
  });
});
