/**
 * Bugs 215 and 218 again, from a review of their fixes with the real CLI:
 * - 218: a merge judged a dropped start on the branch's tip before the agent's uncommitted work (or a stopped
 *   agent's last commit) was committed: a whole branch that conflicted went on to the landing, the commit made
 *   it merge clean, and the dropped commit's rest came back;
 * - 221: apply on a detached HEAD read positions HEAD held on other branches as the detached HEAD's own, and
 *   refused, saying it was moved back, a HEAD detached at a branch that never held the start.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinatorSandbox, git, runCli, useCoordinatorSandbox } from '../core/coordinator/coordinatorFixture';

describe('CLI: a dropped start judged on what lands, and a detached HEAD on its own positions (bugs 215, 218)', function () {
  this.timeout(180_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  const cli = (args: string[]) => runCli(args, { cwd: sb.repo, env: sb.env, input: '' });

  function commit(file: string, text: string, message: string, dir = sb.repo): string {
    writeFileSync(join(dir, file), text);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', message);
    return git(dir, 'rev-parse', 'HEAD');
  }

  /** Starts an agent running `script`; waits for it to end unless `running`. */
  async function startAgent(script: string, running = false): Promise<{ id: string; worktree: string }> {
    const res = await cli(['start', '--json', '--title', 'agent', '--', 'sh', '-c', script]);
    assert.equal(res.code, 0, res.stderr);
    const job = JSON.parse(res.stdout);
    if (!running) assert.equal((await sb.waitEnded(job.id)).lifecycle.state, 'completed');
    return job;
  }

  const mainState = () => [git(sb.repo, 'for-each-ref', 'refs/heads/main', 'refs/tags'), git(sb.repo, 'rev-parse', 'HEAD'), git(sb.repo, 'status', '--porcelain')].join('\n');

  /** main: X=orig, then the start S (X=a and s.txt); the person drops S after the agent starts and sets X=b. */
  async function droppedStartWithAgent(script: string, running = false): Promise<{ id: string; worktree: string; start: string }> {
    commit('f.txt', 'l1\nX=orig\nl3\n', 'f: X=orig');
    writeFileSync(join(sb.repo, 's.txt'), 'the person dropped this\n');
    const start = commit('f.txt', 'l1\nX=a\nl3\n', 'S: X=a and s.txt');
    const job = await startAgent(script, running);
    git(sb.repo, 'reset', '-q', '--hard', 'HEAD~1');
    commit('f.txt', 'l1\nX=b\nl3\n', 'T: X=b');
    return { ...job, start };
  }

  const refusal = (start: string) => new RegExp(`started from ${start.slice(0, 12)} \\(S: X=a and s\\.txt\\), which main no longer has: .*nothing was changed\\.`);

  for (const how of [[], ['--squash']]) {
    it(`bug 215: the agent's uncommitted work, committed by the landing, makes the branch merge clean: ${['merge', ...how].join(' ')} refuses the dropped start`, async () => {
      // The agent's commit leaves X=a conflicting with main's X=b; its uncommitted X=b takes the conflict away.
      const a = await droppedStartWithAgent("printf 'agent\\n' > agent.txt && git add -A && git commit -qm 'agent: agent.txt' && sed -i 's/X=a/X=b/' f.txt");
      const before = mainState();
      const conflict = await cli(['merge', a.id, ...how, '--commits-only']);
      assert.equal(conflict.code, 1, conflict.stdout + conflict.stderr);
      assert.match(conflict.stderr, /conflicts with main/);
      const res = await cli(['merge', a.id, ...how, '--commit-uncommitted']);
      assert.equal(res.code, 1, res.stdout + res.stderr);
      assert.match(res.stderr, refusal(a.start));
      assert.equal(mainState(), before);
      assert.equal(existsSync(join(sb.repo, 's.txt')), false, 'the dropped commit came back');
      // The agent's work is committed on its branch, as asked: nothing of it was lost.
      assert.equal(git(a.worktree, 'status', '--porcelain'), '');
      assert.equal(readFileSync(join(a.worktree, 'f.txt'), 'utf8'), 'l1\nX=b\nl3\n');
    });
  }

  it('bug 215: a running agent stopped first whose last commit makes the branch merge clean: merge refuses the dropped start', async () => {
    const script =
      "trap 'sed -i s/X=a/X=b/ f.txt && git commit -qam \"agent: X=b\"; exit 0' TERM INT HUP; " +
      "printf 'agent\\n' > agent.txt && git add -A && git commit -qm 'agent: agent.txt' && touch ready; while :; do sleep 0.1; done";
    const a = await droppedStartWithAgent(script, true);
    for (let i = 0; i < 300 && !existsSync(join(a.worktree, 'ready')); i++) await new Promise((r) => setTimeout(r, 100));
    const before = mainState();
    const res = await cli(['merge', a.id, '--stop-first', '--commits-only']);
    assert.equal(res.code, 1, res.stdout + res.stderr);
    assert.match(res.stderr, refusal(a.start));
    assert.equal(mainState(), before);
    assert.equal(git(a.worktree, 'log', '-1', '--format=%s'), 'agent: X=b', "the stopped agent's commit");
  });

  it('bug 218: apply on a HEAD detached at a branch that never held the start goes on, though HEAD held the start on main before', async () => {
    git(sb.repo, 'checkout', '-q', '-b', 'rel');
    commit('fix.txt', 'fix\n', 'rel: fix');
    git(sb.repo, 'checkout', '-q', 'main');
    commit('s.txt', 's\n', 'S: main work');
    const a = await startAgent("printf 'agent\\n' > agent.txt && git add -A && git commit -qm 'agent: agent.txt'");
    // HEAD's reflog holds S (main's position); rel never did.
    git(sb.repo, 'checkout', '-q', '--detach', 'rel');
    const res = await cli(['apply', a.id]);
    assert.equal(res.code, 0, res.stdout + res.stderr);
    assert.equal(readFileSync(join(sb.repo, 'agent.txt'), 'utf8'), 'agent\n');
    // As with rel checked out as a branch: git's own merge is what was asked (landing on a branch that never held the start).
  });

  it('bug 218: a start dropped while HEAD was detached (a checkout of an older commit while detached) is still refused', async () => {
    git(sb.repo, 'checkout', '-q', '--detach');
    const start = commit('dropped.txt', 'taken back while detached\n', 'S: detached work');
    const a = await startAgent("printf 'agent\\n' > agent.txt && git add -A && git commit -qm 'agent: agent.txt'");
    git(sb.repo, 'checkout', '-q', 'HEAD~1');
    commit('mine.txt', 'the person went on\n', 'mine, detached');
    const res = await cli(['apply', a.id]);
    assert.equal(res.code, 1, res.stdout + res.stderr);
    assert.match(res.stderr, new RegExp(`started from ${start.slice(0, 12)} \\(S: detached work\\), which the detached HEAD no longer has`));
    assert.equal(existsSync(join(sb.repo, 'agent.txt')), false);
  });
});
