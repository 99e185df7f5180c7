/** Compare Attempts on real attempts after the base moved on and was brought in (Update from Base). */
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinatorSandbox, git, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';

describe('Compare Attempts: what each attempt changed', function () {
  this.timeout(90_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  // Bug: once an attempt brought the base in, the base's new files counted as the attempt's own
  // changes (and, brought into two attempts, as lines they added "in common").
  it('counts only the attempt\'s own changes after Update from Base, by merge or by rebase', async () => {
    const script = "printf 'mine %s\\n' \"$PADDOCK_AGENT_ID\" > mine.txt && git add -A && git commit -qm mine";
    const c = sb.coordinator({ profiles: { one: { command: 'sh', args: ['-c', script] } } });
    const { jobs } = await c.startAttempts({ repo: sb.repo, title: 'task' }, 3, ['one', 'one', 'one']);
    for (const job of jobs) await sb.waitEnded(job.id);
    writeFileSync(join(sb.repo, 'base.txt'), 'base line one\nbase line two\n');
    git(sb.repo, 'add', '-A');
    git(sb.repo, 'commit', '-qm', 'the base moves on');
    await c.update(jobs[0].id, {});
    await c.update(jobs[1].id, { rebase: true });
    const compared = await c.compare(jobs[0].group!.id);
    for (const row of compared.attempts) {
      assert.equal(row.unavailable, null);
      assert.deepEqual(row.files.map((f) => f.path), ['mine.txt'], row.id);
    }
    assert.deepEqual(compared.attempts.map((a) => a.commits), [2, 1, 1], 'the merge commit and the agent\'s; the replayed one; the one not updated');
    assert.equal(compared.commonCount, 0, 'the base\'s lines are no attempt\'s');
  });
});
