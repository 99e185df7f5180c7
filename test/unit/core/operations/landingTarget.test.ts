/**
 * Which branch `--into` may name (bug 61): never the agent's own (bad usage, before anything is
 * asked or changed), a full `refs/heads/X` as X (refused as ambiguous when a branch is named
 * `refs/heads/X` itself, bug 103), HEAD, a tag, a remote-tracking branch or a commit
 * refused by what it is; and a branch checked out in the worktree of an agent that still runs is
 * refused as a target checked out with changes is, until that agent has ended. The window's
 * command asks the same `landingTarget` before its questions.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PaddockError } from '../../../../src/core/common/errors';
import { landingTarget } from '../../../../src/core/operations/landingTarget';
import type { Coordinator } from '../../../../src/core/coordinator';
import type { JobRecord } from '../../../../src/core/store/schema';
import { CoordinatorSandbox, git, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';

describe('landing target: --into', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  const COMMIT = (file: string) => `printf '${file}\\n' > ${file} && git add -A && git commit -qm 'agent ${file}'`;

  /** An ended agent with one commit and an untracked file left uncommitted (so a merge would otherwise ask about it first). */
  async function endedAgent(c: Coordinator): Promise<JobRecord> {
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', `${COMMIT('x.txt')} && printf 'u\\n' > u.txt`], title: 'work' });
    return sb.waitEnded(job.id);
  }

  const refs = (): string => git(sb.repo, 'for-each-ref', '--format=%(refname) %(objectname)');
  const isUsage = (said: RegExp) => (e: PaddockError) => {
    assert.equal(e.kind, 'usage', e.message);
    assert.match(e.message, said);
    assert.equal(e.message.split('\n').length, 1);
    return true;
  };

  it("the agent's own branch, by short or full name, is bad usage naming it, refused before any question and changing nothing", async () => {
    const c = sb.coordinator();
    const job = await endedAgent(c);
    const before = { refs: refs(), status: git(job.worktree!, 'status', '--porcelain') };
    for (const into of [job.branch!, `refs/heads/${job.branch!}`]) {
      const own = new RegExp(`^Agent ${job.id} cannot be landed on its own branch ${job.branch!.replace('/', '\\/')}; `);
      // The window asks landingTarget before its dialogs; the operation asks it before the uncommitted-work question.
      await assert.rejects(landingTarget(job, into), isUsage(own));
      await assert.rejects(c.merge(job.id, { into }), isUsage(own));
      await assert.rejects(c.merge(job.id, { into, uncommitted: 'commit' }), isUsage(own));
    }
    assert.deepEqual({ refs: refs(), status: git(job.worktree!, 'status', '--porcelain') }, before, 'nothing committed, nothing moved');
    assert.equal((await sb.store.read(job.id)).landing ?? null, null);
  });

  it('refs/heads/X lands on X (recorded as X); HEAD, a tag, a remote-tracking branch and a commit are refused by what they are', async () => {
    const c = sb.coordinator();
    const job = await endedAgent(c);
    git(sb.repo, 'tag', 'v1');
    git(sb.repo, 'update-ref', 'refs/remotes/origin/main', 'main');
    const before = refs();
    const cases: [string, RegExp][] = [
      ['HEAD', /^--into takes a branch's name, not HEAD; /],
      ['v1', /^'v1' names a tag, not a local branch; --into takes a local branch's name\.$/],
      ['refs/tags/v1', /^'refs\/tags\/v1' names a tag, not a local branch; /],
      ['origin/main', /^'origin\/main' names a remote-tracking branch, not a local branch; /],
      [git(sb.repo, 'rev-parse', 'main'), /names a commit, not a local branch; /],
      ['no-such-branch', /^There is no branch 'no-such-branch' in /],
    ];
    for (const [into, said] of cases) await assert.rejects(c.merge(job.id, { into, uncommitted: 'commits-only' }), isUsage(said));
    assert.equal(refs(), before, 'nothing moved');
    const landed = await c.merge(job.id, { into: 'refs/heads/main', uncommitted: 'commits-only' });
    assert.equal(landed.into, 'main');
    assert.equal(landed.job.landing?.into, 'main');
    assert.equal(git(sb.repo, 'rev-parse', 'main'), git(sb.repo, 'rev-parse', job.branch!));
  });

  // Bug 103: `refs/heads/main` was always taken as main, though a branch may be named `refs/heads/main`
  // itself (git switch takes that one, git rev-parse calls the name ambiguous).
  it('refs/heads/X with a branch literally named refs/heads/X too is refused as ambiguous; with only that branch, it lands there; heads/X names the branch to say', async () => {
    const c = sb.coordinator();
    const job = await endedAgent(c);
    const main = git(sb.repo, 'rev-parse', 'main');
    git(sb.repo, 'branch', 'refs/heads/main', main);
    const before = refs();
    await assert.rejects(
      c.merge(job.id, { into: 'refs/heads/main', uncommitted: 'commits-only' }),
      isUsage(/^--into refs\/heads\/main is ambiguous in .*: it names branch main, and a branch is named 'refs\/heads\/main' too; say --into main for the first, --into refs\/heads\/refs\/heads\/main for the second\.$/),
    );
    await assert.rejects(c.merge(job.id, { into: 'heads/main', uncommitted: 'commits-only' }), isUsage(/^There is no branch 'heads\/main' in .*; git reads 'heads\/main' as branch main — say --into main\.$/));
    // Found by review in session 11: the name advised for the literal branch was `refs/heads/main`, itself refused as ambiguous.
    const said = /^There is no branch 'heads\/refs\/heads\/main' in .*; git reads 'heads\/refs\/heads\/main' as branch refs\/heads\/main — say --into refs\/heads\/refs\/heads\/main\.$/;
    await assert.rejects(c.merge(job.id, { into: 'heads/refs/heads/main', uncommitted: 'commits-only' }), isUsage(said));
    assert.equal(await landingTarget(job, 'refs/heads/refs/heads/main'), 'refs/heads/main', 'the name advised is the literal branch');
    assert.equal(refs(), before, 'nothing moved');

    // Only the literal branch left (main renamed away): it is the one `refs/heads/main` names, as git switch takes it.
    git(sb.repo, 'branch', '-m', 'main', 'trunk');
    const landed = await c.merge(job.id, { into: 'refs/heads/main', uncommitted: 'commits-only' });
    assert.equal(landed.job.landing?.into, 'refs/heads/main');
    assert.equal(git(sb.repo, 'rev-parse', 'refs/heads/refs/heads/main'), git(sb.repo, 'rev-parse', job.branch!));
    assert.equal(git(sb.repo, 'rev-parse', 'refs/heads/trunk'), main, 'the other branch did not move');
  });

  it("another agent's branch while that agent runs is refused (its worktree's files would change under it), changing nothing; once it has ended it lands there", async () => {
    const c = sb.coordinator();
    const landing = await endedAgent(c);
    const running = await c.start({ repo: sb.repo, command: ['sh', '-c', `${COMMIT('r.txt')} && sleep 30`], title: 'runs' });
    await sb.waitFor(running.id, (j) => j.lifecycle.state === 'running' && git(sb.repo, 'log', '-1', '--format=%s', running.branch!) === 'agent r.txt');
    const before = { refs: refs(), files: git(running.worktree!, 'ls-files'), status: git(running.worktree!, 'status', '--porcelain') };
    await assert.rejects(c.merge(landing.id, { into: running.branch!, uncommitted: 'commits-only' }), (e: PaddockError) => {
      assert.equal(e.kind, 'failed');
      assert.equal(e.code, 'TARGET_DIRTY');
      assert.equal(
        e.message,
        `Branch ${running.branch} is checked out in ${running.worktree}, the worktree of agent ${running.id}, which is still running; stop it first (paddock stop ${running.id}) — nothing was changed.`,
      );
      return true;
    });
    assert.deepEqual({ refs: refs(), files: git(running.worktree!, 'ls-files'), status: git(running.worktree!, 'status', '--porcelain') }, before, "nothing moved, nothing written in the running agent's worktree");
    assert.equal((await sb.store.read(landing.id)).landing ?? null, null);

    await c.stop(running.id, { force: true });
    await sb.waitEnded(running.id);
    const landed = await c.merge(landing.id, { into: running.branch!, uncommitted: 'commits-only' });
    assert.equal(landed.kind, 'merge');
    assert.equal(git(sb.repo, 'rev-parse', running.branch!), landed.commit);
    assert.equal(readFileSync(join(running.worktree!, 'x.txt'), 'utf8'), 'x.txt\n', "the ended agent's worktree was moved with its branch");
  });

  it("a branch a running agent checked out in its own worktree is refused for the agent's landing as it is, too", async () => {
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', `${COMMIT('y.txt')} && git branch side HEAD~1 && git checkout -q side && sleep 30`], title: 'switches' });
    await sb.waitFor(job.id, (j) => j.lifecycle.state === 'running' && git(job.worktree!, 'rev-parse', '--abbrev-ref', 'HEAD') === 'side');
    const before = refs();
    await assert.rejects(c.merge(job.id, { into: 'side', running: 'as-is' }), (e: PaddockError) => e.code === 'TARGET_DIRTY' && e.message.includes(`the worktree of agent ${job.id}, which is still running`));
    assert.equal(refs(), before);
  });
});
