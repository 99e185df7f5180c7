/**
 * The Agents view's "N files +a −b" counts a submodule the agent moved whatever the person's
 * submodule settings say (bug 97's `--ignore-submodules=none`, which had no test at these two
 * sites): `git diff-tree` and `git diff` follow `submodule.<name>.ignore=all`, and the move would
 * drop out of the count while a landing still carries it. Both ways of counting: one agent
 * (`git diff base...head`) and a batch (`diff-tree --stdin`).
 */
import * as assert from 'node:assert/strict';
import { computeStanding, computeStandings, resolveBase, worktreeHead } from '../../../../src/core/git/standing';
import { git, Sandbox, useGitSandbox, write } from './gitTestUtil';

const OLD = '1'.repeat(40);

describe('git: standing counts a moved submodule under ignore settings', function () {
  this.timeout(30_000);
  let sb!: Sandbox;
  useGitSandbox((fresh) => (sb = fresh));

  it('with submodule.sub.ignore=all and diff.ignoreSubmodules=all: each agent counts its file and its submodule, alone and in a batch', async () => {
    const repo = sb.repo({ 'a.txt': 'one\n', '.gitmodules': '[submodule "sub"]\n\tpath = sub\n\turl = https://example.com/sub.git\n' });
    git(repo, 'update-index', '--add', '--cacheinfo', `160000,${OLD},sub`);
    git(repo, 'commit', '-q', '-m', 'submodule');
    const startedAt = git(repo, 'rev-parse', 'HEAD');
    const worktrees = ['x', 'y'].map((name, i) => {
      const wt = sb.path('wt', name);
      git(repo, 'worktree', 'add', '-q', '-b', `paddock/${name}`, wt, 'main');
      write(wt, 'a.txt', `one\n${name}\n`);
      git(wt, 'add', 'a.txt');
      git(wt, 'update-index', '--cacheinfo', `160000,${String(i + 2).repeat(40)},sub`);
      git(wt, 'commit', '-q', '-m', `agent ${name}`);
      return wt;
    });
    git(repo, 'config', 'submodule.sub.ignore', 'all');
    git(repo, 'config', 'diff.ignoreSubmodules', 'all');
    const base = await resolveBase(repo, 'main');
    const requests = await Promise.all(worktrees.map(async (wt) => ({ worktree: wt, tips: { head: (await worktreeHead(wt)).head, baseTip: base.tip, baseName: base.name, startedAt } })));

    const single = await Promise.all(requests.map((r) => computeStanding(r.worktree, r.tips)));
    const batch = await computeStandings(repo, requests, 2);
    // a.txt +1, and the submodule's "Subproject commit" line, −1 +1.
    const expected = { files: 2, insertions: 2, deletions: 1 };
    for (const s of single) assert.deepEqual({ files: s.files, insertions: s.insertions, deletions: s.deletions }, expected, 'one agent at a time');
    for (const s of batch) {
      assert.equal(s.status, 'fulfilled');
      if (s.status === 'fulfilled') assert.deepEqual({ files: s.value.files, insertions: s.value.insertions, deletions: s.value.deletions }, expected, 'in a batch');
    }
  });
});
