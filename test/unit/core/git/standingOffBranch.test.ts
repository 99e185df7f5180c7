/**
 * Bug 186: `paddock update --rebase` stopped on a conflict leaves the agent's worktree with HEAD
 * detached at the base's tip; `show` (and the Agents view) then said "merged into main" while none of
 * the agent's commits were on main. The same with any checkout off the agent's branch (the base's tip
 * checked out detached). Merged is now said of the agent's branch only while HEAD is on it.
 */
import * as assert from 'node:assert/strict';
import { StandingCache } from '../../../../src/core/git/standingCache';
import { figureWords } from '../../../../src/core/git/standingWords';
import type { JobRecord } from '../../../../src/core/store/schema';
import { Sandbox, useGitSandbox, git, commitIn } from './gitTestUtil';

describe('git/standing: merged only while HEAD is on the agent\'s branch (bug 186)', function () {
  this.timeout(60_000);
  let sb!: Sandbox;
  let repo: string;
  let wt: string;
  let startedAt: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'a.txt': 'one\ntwo\nthree\n' });
    startedAt = git(repo, 'rev-parse', 'HEAD');
    wt = sb.path('wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/abc123', wt, 'main');
  });

  /** A record as the cache needs it: only the fields it reads are real. */
  const job = (): JobRecord =>
    ({
      id: 'abc123',
      repo,
      worktree: wt,
      branch: 'paddock/abc123',
      base: 'HEAD',
      baseSha: startedAt,
      cleanup: null,
      landing: null,
      lifecycle: { state: 'completed', generation: 1, lastActivityAt: null, endedAt: null },
    }) as unknown as JobRecord;

  async function standing() {
    const cache = new StandingCache();
    await cache.refresh([job()]);
    const s = cache.get('abc123');
    assert.ok(s, 'a standing');
    return s;
  }

  it('a rebase stopped on a conflict, then aborted: never "merged"; a checkout of the base\'s tip detached neither', async () => {
    commitIn(wt, 'a.txt', 'one\nAGENT\nthree\n');
    commitIn(wt, 'b.txt', 'b\n');
    commitIn(repo, 'a.txt', 'one\nMAIN\nthree\n');
    assert.equal(figureWords(await standing()), '2 commits ahead, 1 behind main · 2 files +2 −1');
    assert.throws(() => git(wt, 'rebase', 'main'), 'the rebase stops on the conflict');
    const stopped = await standing();
    assert.equal(stopped.merged, false, `mid-rebase: ${figureWords(stopped)}`);
    assert.doesNotMatch(figureWords(stopped), /merged/);
    git(wt, 'rebase', '--abort');
    assert.equal(figureWords(await standing()), '2 commits ahead, 1 behind main · 2 files +2 −1');

    git(wt, 'checkout', '-q', '--detach', 'main');
    assert.equal((await standing()).merged, false, 'the base checked out detached in the agent\'s worktree');

    git(wt, 'checkout', '-q', 'paddock/abc123');
    git(repo, 'merge', '-q', '--no-ff', '-X', 'theirs', '-m', 'land', 'paddock/abc123');
    const landed = await standing();
    assert.equal(landed.merged, true, 'landed, and HEAD on the branch: merged');
    assert.equal(figureWords(landed), 'merged into main');
  });
});
