/** A check command that changes the agent's worktree: the work from before it is kept, and the change is said. */
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkGuardRefFor } from '../../../../src/core/check/worktreeGuard';
import { CoordinatorSandbox, git, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';

const AGENT = "printf 'agent work\\n' > work.txt; printf 'committed\\n' > tracked.txt; git add tracked.txt; git commit -qm agent";

describe('Run Check: a check that changes the worktree', function () {
  this.timeout(90_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  // Bug 77: a check ran in the agent's worktree with nothing kept first: one that deleted or rewrote
  // the agent's uncommitted files (a clean, a reset, a formatter) lost or altered its work silently.
  it('keeps the work from before the check under refs/paddock/checks/<id> and names what changed; a check that changes nothing leaves the ref as it was', async () => {
    const c = sb.coordinator({ profiles: { agent: { command: 'sh', args: ['-c', AGENT] } } });
    const job = await c.start({ repo: sb.repo, profile: 'agent' });
    const ended = await sb.waitEnded(job.id);
    const head = git(ended.worktree!, 'rev-parse', 'HEAD');
    const ref = checkGuardRefFor(job.id);

    const first = await c.check(job.id, { settingCommand: 'rm work.txt; echo by the check >> tracked.txt; echo done' });
    assert.equal(first.state, 'passed');
    assert.equal(first.summary, `done\n(the check changed the worktree: 2 files (tracked.txt, work.txt); the work as it was before the check is kept in ${ref})`);
    assert.equal(git(sb.repo, 'show', `${ref}:work.txt`), 'agent work');
    assert.equal(git(sb.repo, 'show', `${ref}:tracked.txt`), 'committed');
    assert.equal(git(sb.repo, 'rev-parse', `${ref}^1`), head, 'its parent is the commit the worktree was at');
    const kept = git(sb.repo, 'rev-parse', ref);

    const quiet = await c.check(job.id, { settingCommand: 'echo fine' });
    assert.equal(quiet.summary, 'fine', 'nothing changed: nothing said');
    assert.equal(git(sb.repo, 'rev-parse', ref), kept, 'the earlier check\'s kept work is still there');

    const committing = await c.check(job.id, { settingCommand: 'echo x > more.txt && git add more.txt && git commit -qm by-the-check && exit 3' });
    assert.equal(committing.state, 'failed');
    assert.match(committing.summary, new RegExp(`\\(check exited with 3\\)\\n\\(the check changed the worktree: 1 file \\(more\\.txt\\) and its HEAD \\(from ${head.slice(0, 10)} to [0-9a-f]{10}\\); the work as it was before the check is kept in ${ref}\\)$`));
    assert.equal(git(sb.repo, 'rev-parse', `${ref}^2`), kept, 'a later check keeps the earlier kept work reachable');
    assert.equal(git(sb.repo, 'show', `${ref}^2:work.txt`), 'agent work');
    assert.equal(readFileSync(join(ended.worktree!, 'more.txt'), 'utf8'), 'x\n', 'the check\'s own changes stay: they are said, not undone');
  });

  it('a check that leaves the worktree as it was adds no ref', async () => {
    const c = sb.coordinator({ profiles: { agent: { command: 'sh', args: ['-c', AGENT] } } });
    const job = await c.start({ repo: sb.repo, profile: 'agent' });
    await sb.waitEnded(job.id);
    const check = await c.check(job.id, { settingCommand: 'cat work.txt; echo scratch > /dev/null' });
    assert.equal(check.summary, 'agent work');
    assert.equal(git(sb.repo, 'for-each-ref', 'refs/paddock/checks/'), '');
  });
  // Review of bug 77: a work that cannot be saved first is said as such, and the check does not run over it.
  it('a worktree whose state cannot be saved first: the check does not run, and the summary says why', async () => {
    const c = sb.coordinator({ profiles: { agent: { command: 'sh', args: ['-c', AGENT] } } });
    const job = await c.start({ repo: sb.repo, profile: 'agent' });
    const ended = await sb.waitEnded(job.id);
    // A lock left by a killed git on the check ref: update-ref cannot take it.
    const lock = join(sb.repo, '.git', `${checkGuardRefFor(job.id)}.lock`);
    mkdirSync(join(lock, '..'), { recursive: true });
    writeFileSync(lock, '');
    const check = await c.check(job.id, { settingCommand: 'rm work.txt; touch ran' });
    assert.equal(check.state, 'failed');
    assert.match(check.summary, /^The check could not run: the agent's work in its worktree could not be saved before it \(.+\), so nothing was run$/s);
    assert.equal(existsSync(join(ended.worktree!, 'ran')), false, 'the check command did not run');
    assert.equal(readFileSync(join(ended.worktree!, 'work.txt'), 'utf8'), 'agent work\n');
  });
});
