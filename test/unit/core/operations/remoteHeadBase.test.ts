/**
 * A base of `origin` is the branch origin's HEAD points at (bug 119): git reads `origin` (and
 * `origin/HEAD`) as refs/remotes/origin/HEAD, a symbolic ref to refs/remotes/origin/<branch>, and the
 * start took that branch's commit. The landing read the remote's branch as "HEAD": a pull request
 * pushed and asked to go into a branch named HEAD, an update said "origin/HEAD". It now follows the
 * symbolic ref to the branch; a remote HEAD that is no symbolic ref names no branch and is refused,
 * as is a branch named HEAD.
 */
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { PaddockError } from '../../../../src/core/common/errors';
import { remoteBaseName } from '../../../../src/core/operations/landingTarget';
import { CoordinatorSandbox, git, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';

describe('landing target: a base of a remote\'s HEAD is the branch it points at', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  const COMMIT = `printf 'x\\n' > x.txt && git add -A && git commit -qm 'agent x'`;

  /** A remote `origin` whose HEAD is its branch develop (one commit past main); no local develop. */
  function remoteWithDevelop(): string {
    const bare = join(sb.root, 'remote.git');
    git(sb.root, 'init', '-q', '--bare', bare);
    git(sb.repo, 'remote', 'add', 'origin', bare);
    git(sb.repo, 'push', '-q', 'origin', `${git(sb.repo, 'commit-tree', '-p', 'main', '-m', 'develop', 'main^{tree}')}:refs/heads/develop`);
    git(sb.repo, 'fetch', '-q', 'origin');
    git(sb.repo, 'remote', 'set-head', 'origin', 'develop');
    return bare;
  }

  async function endedAgent(base: string, c = sb.coordinator()) {
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', COMMIT], title: 'work', base });
    const ended = await sb.waitEnded(job.id);
    assert.equal(ended.lifecycle.state, 'completed');
    return { c, job: ended };
  }

  it('base origin: started from origin/develop; the pull request goes into develop, the update brings in origin/develop', async () => {
    const bare = remoteWithDevelop();
    const { c, job } = await endedAgent('origin');
    assert.equal(job.baseSha, git(sb.repo, 'rev-parse', 'refs/remotes/origin/develop'));
    const updated = await c.update(job.id);
    assert.equal(updated.base, 'origin/develop');
    const pr = await c.pullRequest(job.id);
    assert.equal(pr.base, 'develop');
    assert.equal(pr.remote, 'origin');
    assert.equal(git(bare, 'rev-parse', job.branch!), git(sb.repo, 'rev-parse', job.branch!), 'pushed');
    assert.equal(git(bare, 'for-each-ref', '--format=%(refname)', 'refs/heads/HEAD'), '', 'no branch HEAD on the remote');
    for (const base of ['origin', 'origin/HEAD', 'remotes/origin/HEAD', 'refs/remotes/origin/HEAD']) {
      assert.deepEqual(await remoteBaseName({ ...job, base }), { remote: 'origin', branch: 'develop' }, base);
    }
  });

  it('base origin with a local develop: lands on develop', async () => {
    remoteWithDevelop();
    git(sb.repo, 'branch', 'develop', 'refs/remotes/origin/develop');
    const { c, job } = await endedAgent('origin');
    const landed = await c.merge(job.id, {});
    assert.equal(landed.into, 'develop');
    assert.equal(git(sb.repo, 'rev-parse', 'develop'), git(sb.repo, 'rev-parse', job.branch!));
  });

  it('a remote HEAD that is no symbolic ref, and a branch named HEAD: refused, nothing pushed or moved', async () => {
    const bare = remoteWithDevelop();
    const { c, job } = await endedAgent('origin');
    git(sb.repo, 'update-ref', '--no-deref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/develop');
    for (const base of ['origin', 'origin/HEAD']) assert.equal(await remoteBaseName({ ...job, base }), null, base);
    await assert.rejects(c.pullRequest(job.id), (e: PaddockError) => {
      assert.equal(e.kind, 'usage', e.message);
      assert.match(e.message, /base 'origin' is not a local branch; a pull request needs a branch to go into/);
      return true;
    });
    assert.equal(git(bare, 'for-each-ref', '--format=%(refname)', 'refs/heads/paddock'), '', 'nothing pushed');

    git(sb.repo, 'update-ref', 'refs/heads/HEAD', 'main');
    const before = git(sb.repo, 'for-each-ref', '--format=%(refname) %(objectname)');
    await assert.rejects(c.merge(job.id, { into: undefined }), (e: PaddockError) => e.kind === 'usage');
    const other = await endedAgent('heads/HEAD', c);
    await assert.rejects(c.merge(other.job.id, {}), (e: PaddockError) => {
      assert.equal(e.kind, 'usage', e.message);
      assert.match(e.message, /^Git reads agent .*'s base 'heads\/HEAD' as branch HEAD, which is no branch to land on; say which branch to land on with --into BRANCH\.$/);
      return true;
    });
    assert.equal(git(sb.repo, 'for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads/HEAD', 'refs/heads/main'), before.split('\n').filter((l) => /^refs\/heads\/(HEAD|main) /.test(l)).join('\n'));
  });
});
