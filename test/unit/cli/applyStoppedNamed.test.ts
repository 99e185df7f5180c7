/**
 * `paddock apply` refusing local changes in the way (bug 102): it says an earlier apply of the agent
 * was stopped before it finished only while the agent's history holds an `apply-started` with no
 * apply's landing after it — else the changes are the person's own, and the refusal says so plainly.
 */
import * as assert from 'node:assert/strict';
import { unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinatorSandbox, runCli, useCoordinatorSandbox } from '../core/coordinator/coordinatorFixture';

describe('CLI: apply refused by local changes names a stopped apply only when the history shows one', function () {
  this.timeout(90_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  const cli = (args: string[]) => runCli(args, { cwd: sb.repo, env: sb.env, input: '' });

  it('plain refusal, then the stopped apply named, then plain again once an apply landed after it', async () => {
    const started = await cli(['start', '--json', '--title', 'the agent', '--', 'sh', '-c', `printf 'agent\\n' > same.txt && git add -A && git commit -qm same`]);
    assert.equal(started.code, 0, started.stderr);
    const { id } = JSON.parse(started.stdout) as { id: string };
    assert.equal((await sb.waitEnded(id)).lifecycle.state, 'completed');
    writeFileSync(join(sb.repo, 'same.txt'), 'mine\n');

    const plain = await cli(['apply', id]);
    assert.equal(plain.code, 1, plain.stdout);
    assert.match(plain.stderr, /commit or stash them and try again/);
    assert.doesNotMatch(plain.stderr, /was stopped before it finished/);

    await sb.store.appendTimeline(id, { generation: 1, type: 'apply-started', message: `apply into ${sb.repo} started` });
    const named = await cli(['apply', id]);
    assert.equal(named.code, 1, named.stdout);
    assert.match(named.stderr, /an earlier apply of .* was stopped before it finished, so they may be its writes/);

    // An apply recorded after it: that start finished, and the changes are the person's again.
    await sb.store.appendTimeline(id, { generation: 1, type: 'landing', message: `apply into ${sb.repo}` });
    const again = await cli(['apply', id]);
    assert.equal(again.code, 1, again.stdout);
    assert.doesNotMatch(again.stderr, /was stopped before it finished/);
  });

  it('an apply that failed and put its files back is no stopped apply: the next refusal is plain (bug 117)', async () => {
    // A submodule's new commit is staged after git apply has written same.txt: the index locked then fails the apply, which puts same.txt back.
    const modules = `[submodule "sub"]\\n\\tpath = sub\\n\\turl = https://example.com/sub.git\\n`;
    const script = `mkdir sub && printf 'agent\\n' > same.txt && printf '${modules}' > .gitmodules && git add same.txt .gitmodules && git update-index --add --cacheinfo 160000,${'2'.repeat(40)},sub && git commit -qm sub`;
    const started = await cli(['start', '--json', '--title', 'the agent', '--', 'sh', '-c', script]);
    assert.equal(started.code, 0, started.stderr);
    const { id } = JSON.parse(started.stdout) as { id: string };
    assert.equal((await sb.waitEnded(id)).lifecycle.state, 'completed');

    const lock = join(sb.repo, '.git', 'index.lock');
    writeFileSync(lock, '');
    const failed = await cli(['apply', id]);
    assert.equal(failed.code, 1, failed.stdout);
    assert.match(failed.stderr, /holds the index lock.*nothing was changed/);
    unlinkSync(lock);
    writeFileSync(join(sb.repo, 'same.txt'), 'mine\n');
    const refused = await cli(['apply', id]);
    assert.equal(refused.code, 1, refused.stdout);
    assert.match(refused.stderr, /commit or stash them and try again/);
    assert.doesNotMatch(refused.stderr, /was stopped before it finished/);
  });
});
