/**
 * Merge into Base honours git's merge.ff for its plain merge (bug 61): false makes a merge commit
 * where a fast-forward would do, only refuses what cannot fast-forward (as --ff-only does), true
 * or unset fast-forwards; the target's mergeOptions fast-forward flags count over it; an explicit
 * --ff-only, --squash or --rebase is what it says whatever the config. The record says what was
 * done (landing.kind ff or merge).
 */
import * as assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PaddockError } from '../../../../src/core/common/errors';
import type { Coordinator } from '../../../../src/core/coordinator';
import type { JobRecord } from '../../../../src/core/store/schema';
import { CoordinatorSandbox, git, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';

describe('merge: git merge.ff', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  async function agentWithCommit(c: Coordinator, file: string): Promise<JobRecord> {
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', `printf '${file}\\n' > ${file} && git add -A && git commit -qm 'agent ${file}'`], title: `adds ${file}` });
    return sb.waitEnded(job.id);
  }

  function mainMoves(): string {
    writeFileSync(join(sb.repo, 'main.txt'), 'main\n');
    git(sb.repo, 'add', '-A');
    git(sb.repo, 'commit', '-qm', 'main moves');
    return git(sb.repo, 'rev-parse', 'main');
  }

  const parents = (commit: string): string[] => git(sb.repo, 'rev-list', '--parents', '-n1', commit).split(' ').slice(1);

  it('merge.ff=false: a merge commit even where a fast-forward would do, recorded as a merge; true and unset fast-forward', async () => {
    const c = sb.coordinator();
    const a = await agentWithCommit(c, 'a.txt');
    const b = await agentWithCommit(c, 'b.txt');
    const before = git(sb.repo, 'rev-parse', 'main');
    git(sb.repo, 'config', 'merge.ff', 'false');
    const merged = await c.merge(a.id);
    assert.equal(merged.kind, 'merge');
    assert.equal(merged.job.landing?.kind, 'merge');
    assert.equal(merged.job.landing?.commit, merged.commit);
    assert.deepEqual(parents(merged.commit), [before, git(sb.repo, 'rev-parse', a.branch!)]);
    assert.equal(git(sb.repo, 'log', '-1', '--format=%s', 'main'), `Merge branch '${a.branch}' into main`);
    assert.equal(readFileSync(join(sb.repo, 'a.txt'), 'utf8'), 'a.txt\n', 'the checked-out main moved with it');
    assert.equal(git(sb.repo, 'status', '--porcelain'), '');

    git(sb.repo, 'reset', '-q', '--hard', before);
    git(sb.repo, 'config', 'merge.ff', 'true');
    const ff = await c.merge(b.id);
    assert.equal(ff.kind, 'ff');
    assert.equal(ff.job.landing?.kind, 'ff');
    assert.equal(git(sb.repo, 'rev-parse', 'main'), git(sb.repo, 'rev-parse', b.branch!));

    git(sb.repo, 'reset', '-q', '--hard', before);
    git(sb.repo, 'config', '--unset', 'merge.ff');
    assert.equal((await c.merge(b.id)).kind, 'ff');
  });

  it('merge.ff=false with an explicit --ff-only fast-forwards; the target branch\'s mergeOptions --ff wins over merge.ff=false', async () => {
    const c = sb.coordinator();
    const a = await agentWithCommit(c, 'a.txt');
    const before = git(sb.repo, 'rev-parse', 'main');
    git(sb.repo, 'config', 'merge.ff', 'false');
    const ff = await c.merge(a.id, { strategy: 'ff-only' });
    assert.equal(ff.kind, 'ff');
    assert.equal(git(sb.repo, 'rev-parse', 'main'), git(sb.repo, 'rev-parse', a.branch!));

    git(sb.repo, 'reset', '-q', '--hard', before);
    git(sb.repo, 'config', 'branch.main.mergeOptions', '--ff');
    assert.equal((await c.merge(a.id)).kind, 'ff');
  });

  it('merge.ff=only: a merge that cannot fast-forward is refused as --ff-only is, naming the setting, changing nothing; one that can fast-forwards; --squash is not bound by it', async () => {
    const c = sb.coordinator();
    const a = await agentWithCommit(c, 'a.txt');
    git(sb.repo, 'config', 'merge.ff', 'only');
    const moved = mainMoves();
    await assert.rejects(c.merge(a.id), (e: PaddockError) => {
      assert.equal(e.kind, 'failed');
      assert.equal(e.code, 'NOT_FAST_FORWARD');
      assert.equal(e.message, `main cannot be fast-forwarded to ${a.branch}: it has commits the branch lacks; nothing was changed (git's merge.ff=only allows a merge only as a fast-forward: squash or rebase instead).`);
      return true;
    });
    assert.equal(git(sb.repo, 'rev-parse', 'main'), moved);
    assert.equal(git(sb.repo, 'status', '--porcelain'), '');
    assert.equal((await sb.store.read(a.id)).landing ?? null, null, 'nothing recorded');

    const squashed = await c.merge(a.id, { strategy: 'squash' });
    assert.equal(squashed.kind, 'squash');
    assert.deepEqual(parents(squashed.commit), [moved]);

    const b = await agentWithCommit(c, 'b.txt');
    const ff = await c.merge(b.id);
    assert.equal(ff.kind, 'ff');
    assert.equal(git(sb.repo, 'rev-parse', 'main'), git(sb.repo, 'rev-parse', b.branch!));
  });
});
