/**
 * A cleanup of an agent that left many files git cannot store (bug 87, found by review): a
 * required clean filter whose command is not on the PATH (git-lfs missing) makes git stop at the
 * first such file and name only it, one a run, so 64 or more failed every capture and the
 * coordinator retried it forever. Now the cleanup completes, and its notes say what those files
 * are, not "ignored or nested".
 */
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { CoordinatorSandbox, useCoordinatorSandbox, git } from './coordinatorFixture';

describe('Coordinator: cleanup of files git would not store', function () {
  this.timeout(120_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  it('70 files of a required clean filter that cannot run: captured as they are on disk, and said so', async () => {
    git(sb.repo, 'config', 'filter.bad.clean', 'git-lfs-not-on-path clean -- %f');
    git(sb.repo, 'config', 'filter.bad.required', 'true');
    const c = sb.coordinator();
    const started = await c.start({
      repo: sb.repo,
      command: ['sh', '-c', 'echo "*.bad filter=bad" > .gitattributes && echo "*.log" > .gitignore && echo log > run.log && mkdir big && for i in $(seq 70); do echo "w $i" > big/$i.bad; done'],
    });
    const job = await sb.waitEnded(started.id);
    assert.equal(job.lifecycle.state, 'completed', job.lifecycle.detail ?? '');
    const report = await c.cleanup(job.id);
    assert.equal(report.job.cleanup?.phase, 'complete', report.job.cleanup?.lastError ?? '');
    assert.equal(existsSync(job.worktree!), false);
    assert.equal(report.job.evidence?.summary?.unstorable, 70);
    assert.ok(report.notes.includes('1 ignored or nested file(s) and 0 empty folder(s) archived'), report.notes.join('; '));
    assert.ok(report.notes.some((n) => /^70 file\(s\) git would not store .* archived as they are on disk$/.test(n)), report.notes.join('; '));
    // The record with the new count reads back.
    assert.equal((await sb.store.read(job.id))?.evidence?.summary?.unstorable, 70);
  });

  it('a capture that fails says so once, in one sentence', async () => {
    const c = sb.coordinator();
    // A HEAD git cannot resolve: the capture stops before anything is removed.
    const started = await c.start({ repo: sb.repo, command: ['sh', '-c', 'echo "ref: refs/heads/x y" > "$(git rev-parse --git-dir)/HEAD"'] });
    const job = await sb.waitEnded(started.id);
    const report = await c.cleanup(job.id);
    assert.equal(report.job.cleanup?.phase, 'incomplete');
    assert.equal(report.job.cleanup?.lastError, `could not capture ${job.worktree}: ambiguous argument 'HEAD^{commit}': unknown revision or path not in the working tree.`);
    assert.equal(existsSync(job.worktree!), true);
  });
});
