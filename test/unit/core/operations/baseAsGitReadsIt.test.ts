/**
 * A landing without --into goes to the branch the agent's base named when it started (bug 119): the
 * start reads the base's commit by git's rule (`rev-parse`: refs/<name>, then tags, branches,
 * remote-tracking branches), and the landing now reads the base's branch by that same rule. Before,
 * the landing read `heads/main` as a branch literally named so: refused when there was none, landed
 * on that other branch when there was one, and on branch main for a base `main` that git read as tag main.
 * That refusal says git reads the name as the tag, not that it is no local branch (a branch of that name is there).
 */
import * as assert from 'node:assert/strict';
import { PaddockError } from '../../../../src/core/common/errors';
import { CoordinatorSandbox, git, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';

describe('landing target: the base read by the rule the start read it by', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  const COMMIT = `printf 'x\\n' > x.txt && git add -A && git commit -qm 'agent x'`;
  const refs = (): string => git(sb.repo, 'for-each-ref', '--format=%(refname) %(objectname)');

  async function endedAgent(base: string) {
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', COMMIT], title: 'work', base });
    const ended = await sb.waitEnded(job.id);
    assert.equal(ended.lifecycle.state, 'completed');
    return { c, job: ended };
  }

  it('base heads/main started from main and lands on main', async () => {
    const main = git(sb.repo, 'rev-parse', 'main');
    const { c, job } = await endedAgent('heads/main');
    assert.equal(job.baseSha, main);
    const landed = await c.merge(job.id, {});
    assert.equal(landed.into, 'main');
    assert.equal(git(sb.repo, 'rev-parse', 'main'), git(sb.repo, 'rev-parse', job.branch!));
  });

  it('base heads/main with a branch literally named heads/main too: started from main, lands on main, the other branch unmoved', async () => {
    const main = git(sb.repo, 'rev-parse', 'main');
    git(sb.repo, 'commit', '-q', '--allow-empty', '-m', 'other');
    git(sb.repo, 'branch', 'heads/main', 'HEAD');
    git(sb.repo, 'reset', '-q', '--hard', main);
    const other = git(sb.repo, 'rev-parse', 'refs/heads/heads/main');
    const { c, job } = await endedAgent('heads/main');
    assert.equal(job.baseSha, main, 'git read heads/main as refs/heads/main');
    const landed = await c.merge(job.id, {});
    assert.equal(landed.into, 'main');
    assert.equal(git(sb.repo, 'rev-parse', 'main'), git(sb.repo, 'rev-parse', job.branch!));
    assert.equal(git(sb.repo, 'rev-parse', 'refs/heads/heads/main'), other, 'the branch named heads/main did not move');
  });

  it('base main read by git as tag main (older than branch main): refused, saying git reads it as the tag, nothing moved', async () => {
    const old = git(sb.repo, 'rev-parse', 'main');
    git(sb.repo, 'tag', 'main', old);
    git(sb.repo, 'commit', '-q', '--allow-empty', '-m', 'newer');
    const { c, job } = await endedAgent('main');
    assert.equal(job.baseSha, old, 'git read main as the tag');
    const before = refs();
    await assert.rejects(c.merge(job.id, {}), (e: PaddockError) => {
      assert.equal(e.kind, 'usage', e.message);
      // Not "is not a local branch": there is one; git reads the name as the tag (bug 119, review).
      assert.match(e.message, /^Git reads agent \S+'s base 'main' as tag main \(there is a branch main too\); say which branch to land on with --into BRANCH\.$/);
      return true;
    });
    // With no --into, the way out is the tag's going: checking main out changes nothing (bug 119, second review).
    for (const attempt of [() => c.pullRequest(job.id), () => c.update(job.id)]) {
      await assert.rejects(attempt(), (e: PaddockError) => {
        assert.equal(e.kind, 'usage', e.message);
        assert.match(e.message, /^Git reads agent \S+'s base 'main' as tag main \(there is a branch main too\); delete or rename tag main \(`git tag -d main`\), then try again\.$/);
        return true;
      });
    }
    assert.equal(refs(), before);
    git(sb.repo, 'tag', '-d', 'main');
    assert.equal((await c.merge(job.id, {})).into, 'main', 'that way out works');
  });

  it('base remotes/origin/main (refs/remotes/origin/main to git) lands on the local main, as origin/main does', async () => {
    git(sb.repo, 'update-ref', 'refs/remotes/origin/main', 'main');
    git(sb.repo, 'remote', 'add', 'origin', sb.repo);
    const { c, job } = await endedAgent('remotes/origin/main');
    const landed = await c.merge(job.id, {});
    assert.equal(landed.into, 'main');
    assert.equal(git(sb.repo, 'rev-parse', 'main'), git(sb.repo, 'rev-parse', job.branch!));
  });
});
