/**
 * Bug 200's class (found auditing the byte-keeping listings): a worktree whose link was cut is read
 * through its registration, given to git as GIT_DIR. Listed by its bytes, a registration named
 * `bad\xff` reached git as `bad\ufffd` (an environment is UTF-8): the person's registration of that
 * name was read as the agent's worktree. Real repository, real worktrees, raw-byte names.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { worktreeGitEnv } from '../../../../src/core/git/worktreeGitEnv';
import { git, Sandbox, useGitSandbox } from './gitTestUtil';

describe('git: worktreeGitEnv, a registration named by raw bytes (bug 200)', function () {
  this.timeout(30_000);
  let sb!: Sandbox;
  useGitSandbox((fresh) => (sb = fresh));

  it("never points git at the person's registration bad\\ufffd for the agent's bad\\xff", async () => {
    const repo = sb.repo();
    const wt = sb.path('agent');
    git(repo, 'worktree', 'add', '-q', '-b', 'agent', wt);
    // The person's worktree whose registration is `bad\ufffd`; the agent's renamed `bad\xff`, its .git then leading nowhere.
    execFileSync('bash', ['-euc', `git -C "$R" worktree add -q --detach "$P"/$'bad\\xef\\xbf\\xbd' main && mv "$R"/.git/worktrees/agent "$R"/.git/worktrees/$'bad\\xff'`], {
      env: { ...process.env, R: repo, P: sb.path('p') },
    });
    await assert.rejects(worktreeGitEnv(repo, wt, 'agent'), /named by bytes that are not text/);
  });
});
