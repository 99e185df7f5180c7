/**
 * `paddock restore` after a cleanup gives back the worktree as the agent left it (bug 53): what it
 * added with `git add -N`, the files it flagged assume-unchanged or skip-worktree, its HEAD's commit.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { git } from '../git/gitTestUtil';
import { CoordinatorSandbox, useCoordinatorSandbox } from './coordinatorFixture';

describe('Coordinator: restore gives back the state the agent left its worktree in', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  it('intent-to-add, an assume-unchanged edit and a detached HEAD come back through cleanup and restore', async () => {
    const c = sb.coordinator();
    const script = [
      'echo planned > planned.txt',
      'git add -N planned.txt',
      'git update-index --assume-unchanged README.md',
      'echo edited >> README.md',
      'git checkout -q --detach',
    ].join(' && ');
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', script] });
    await sb.waitEnded(job.id);
    const head = git(job.worktree!, 'rev-parse', 'HEAD');
    const status = git(job.worktree!, 'status', '--porcelain=v2');
    assert.match(status, /^1 \.A .* planned\.txt$/m, 'the agent left an intent-to-add entry');
    const cleaned = (await c.cleanup(job.id)).job;
    assert.equal(cleaned.cleanup?.phase, 'complete', cleaned.cleanup?.lastError ?? '');

    const result = await c.restore(job.id);
    assert.equal(result.path, job.worktree);
    assert.equal(git(job.worktree!, 'status', '--porcelain=v2'), status);
    assert.match(git(job.worktree!, 'ls-files', '-v', 'README.md'), /^h README\.md$/);
    assert.equal(readFileSync(join(job.worktree!, 'README.md'), 'utf8'), 'hello\nedited\n');
    assert.equal(git(job.worktree!, 'rev-parse', 'HEAD'), head);
    // Its branch was deleted by the cleanup (nothing on it was unmerged): re-created at HEAD and checked
    // out rather than left detached, so the agent can still be landed; said so.
    assert.equal(git(job.worktree!, 'rev-parse', '--symbolic-full-name', 'HEAD'), `refs/heads/${job.branch}`);
    assert.match(result.problems.join('\n'), /HEAD was detached; it is on the agent's branch .* now, re-created at that commit/);
  });
});
