/**
 * `paddock apply` when the agent's files are already in the workspace (bug 102, review): it finishes
 * and records the apply, and says *an earlier apply … was stopped* only when the agent's history
 * holds an apply that started and was never recorded — else the files simply matched (the person's
 * own copy, or an apply recorded since).
 */
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinatorSandbox, runCli, useCoordinatorSandbox } from '../core/coordinator/coordinatorFixture';

describe('CLI: apply of work already in the workspace', function () {
  this.timeout(90_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  const cli = (args: string[]) => runCli(args, { cwd: sb.repo, env: sb.env, input: '' });

  async function agent(script: string): Promise<{ id: string }> {
    const res = await cli(['start', '--json', '--title', 'the agent', '--', 'sh', '-c', script]);
    assert.equal(res.code, 0, res.stderr);
    const job = JSON.parse(res.stdout) as { id: string };
    assert.equal((await sb.waitEnded(job.id)).lifecycle.state, 'completed');
    return job;
  }

  // Found by review in session 11: files already as the agent's were always said written by "an earlier apply … stopped", though only the history can say so.
  it('apply with the files already as the agent has them: says an earlier apply was stopped only when its history shows one', async () => {
    const a = await agent(`printf 'same\\n' > same.txt && git add -A && git commit -qm same`);
    writeFileSync(join(sb.repo, 'same.txt'), 'same\n');
    const matched = await cli(['apply', a.id]);
    assert.equal(matched.code, 0, matched.stderr);
    assert.match(matched.stdout, /1 file changed, uncommitted \(the files already matched the agent's work\)\.\n$/);

    await sb.store.update(a.id, (j) => ({ ...j, landing: null }));
    await sb.store.appendTimeline(a.id, { generation: 1, type: 'apply-started', message: `apply into ${sb.repo} started` });
    const stopped = await cli(['apply', a.id]);
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.match(stopped.stdout, /\(an earlier apply had written them and was stopped before it finished\)\.\n$/);

    // That apply is recorded now: it no longer counts as stopped.
    await sb.store.update(a.id, (j) => ({ ...j, landing: null }));
    const again = await cli(['apply', a.id]);
    assert.match(again.stdout, /\(the files already matched the agent's work\)\.\n$/);
  });
});
