/**
 * Bug 105's siblings: every ref Paddock writes under refs/paddock/ is written without the person's
 * hooks. A `core.hooksPath` in the person's global config reaches even the scratch repository a
 * foreign worktree's bundle is made in (refs/paddock/kept/<n>): a reference-transaction hook there
 * that refused refs/paddock/* failed the bundle, and the cleanup stopped for consent. A check's
 * guard ref (refs/paddock/checks/…) was written through the repository's hook alike.
 */
import * as assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { writeForeignBundle } from '../../../../src/core/git/foreignBundle';
import { guardWorktree, worktreeChangesByCheck } from '../../../../src/core/check/worktreeGuard';
import { worktreeTree } from '../../../../src/core/attempts/attemptTree';
import { Sandbox, git, useGitSandbox, write } from './gitTestUtil';

describe("git: Paddock's own refs are written without the person's hooks (bug 105)", function () {
  this.timeout(60_000);
  let sb!: Sandbox;
  let repo: string;
  let seen: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'README.md': 'hello\n' });
    seen = sb.path('hook-saw');
  });

  /** A reference-transaction hook in `dir` that refuses every ref under refs/paddock/ and logs what it was asked. */
  function refusingHook(dir: string): void {
    write(dir, 'reference-transaction', `#!/bin/sh\nwhile read o n r; do echo "$r" >> '${seen}'; case $r in refs/paddock/*) echo "refusing $r" >&2; exit 1;; esac; done\n`);
    chmodSync(path.join(dir, 'reference-transaction'), 0o755);
  }
  const askedAboutOurs = () => existsSync(seen) && readFileSync(seen, 'utf8').includes('refs/paddock/');

  it("a global core.hooksPath hook does not refuse a foreign worktree's bundle (its scratch repository's refs/paddock/kept/)", async () => {
    const hooks = sb.path('global-hooks');
    refusingHook(hooks);
    write(sb.path('home'), 'gitconfig', `[core]\n\thooksPath = ${hooks}\n`);
    git(repo, 'checkout', '-q', '--detach');
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'on no branch');
    const tip = git(repo, 'rev-parse', 'HEAD');
    for (const dir of ['out', 'scratch']) mkdirSync(sb.path(dir), { recursive: true });
    const saved = process.env.GIT_CONFIG_GLOBAL;
    process.env.GIT_CONFIG_GLOBAL = sb.path('home', 'gitconfig');
    try {
      const made = await writeForeignBundle(repo, [tip], sb.path('out', 'kept.bundle'), sb.path('scratch'));
      assert.deepEqual(made, { ok: true, count: 1, needs: [git(repo, 'rev-parse', 'HEAD~1')] });
    } finally {
      process.env.GIT_CONFIG_GLOBAL = saved;
    }
    assert.equal(askedAboutOurs(), false, 'the hook was not asked about our own ref');
  });

  it("a check's guard ref is written and put back without the repository's hook", async () => {
    refusingHook(path.join(repo, '.git', 'hooks'));
    const wt = sb.agentWorktree(repo);
    write(wt, 'README.md', 'edited\n');
    const guard = await guardWorktree(repo, wt, 'job1');
    assert.equal(git(repo, 'show', `${guard.ref}:README.md`), 'edited');
    assert.equal(await worktreeChangesByCheck(guard), '', 'the check changed nothing');
    assert.throws(() => git(repo, 'rev-parse', '--verify', '-q', guard.ref), 'the guard ref is undone');
    assert.equal(askedAboutOurs(), false, 'the hook was not asked about our own ref');
  });

  // The capture's sibling: the guard's (and the compare view's) scratch index ran the person's post-index-change hook.
  it("a check's guard runs no hook on its scratch index (post-index-change)", async () => {
    write(path.join(repo, '.git', 'hooks'), 'post-index-change', `#!/bin/sh\necho "index $GIT_INDEX_FILE" >> '${seen}'\n`);
    chmodSync(path.join(repo, '.git', 'hooks', 'post-index-change'), 0o755);
    const wt = sb.agentWorktree(repo);
    rmSync(seen, { force: true });
    write(wt, 'README.md', 'edited\n');
    const { tree } = await worktreeTree(repo, wt);
    assert.equal(git(repo, 'show', `${tree}:README.md`), 'edited');
    assert.equal(existsSync(seen) ? readFileSync(seen, 'utf8') : '', '', 'the hook never ran');
  });
});
