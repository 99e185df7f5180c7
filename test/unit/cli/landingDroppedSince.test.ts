/**
 * Bugs 215–218, the dropped-base check of bug 185 gone through again with the real CLI:
 * - 218: a rebase landing was refused though git rebase would skip the dropped start (its patch is on the
 *   base after `git pull --rebase`) whenever the person changed its lines again since;
 * - 219: a commit `paddock update` brought in, which the base dropped after, came back with the next landing;
 * - 220: `pr` proposed a commit dropped from the local base before it was ever pushed;
 * - 221: `apply` on a detached HEAD did not check at all.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinatorSandbox, git, runCli, useCoordinatorSandbox } from '../core/coordinator/coordinatorFixture';

/** Every ref, HEAD, the index file's bytes and every file of `dir` outside .git, byte for byte. */
function state(dir: string): string {
  const files = (d: string, rel = ''): string[] =>
    readdirSync(join(d, rel), { withFileTypes: true })
      .filter((e) => e.name !== '.git')
      .sort((a, b) => a.name.localeCompare(b.name))
      .flatMap((e) => (e.isDirectory() ? files(d, join(rel, e.name)) : [`${join(rel, e.name)}=${readFileSync(join(d, rel, e.name)).toString('base64')}`]));
  const gitDir = git(dir, 'rev-parse', '--absolute-git-dir');
  return [git(dir, 'for-each-ref'), git(dir, 'rev-parse', 'HEAD'), readFileSync(join(gitDir, 'index')).toString('base64'), ...files(dir)].join('\n');
}

describe('CLI: commits the base dropped, as each landing would see them (bugs 215-218)', function () {
  this.timeout(180_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  const cli = (args: string[]) => runCli(args, { cwd: sb.repo, env: sb.env, input: '' });

  /** Starts an agent that commits `file`, and waits for it to complete. */
  async function startAgent(file = 'agent.txt'): Promise<{ id: string; worktree: string; branch: string }> {
    const res = await cli(['start', '--json', '--title', 'agent', '--', 'sh', '-c', `printf 'agent\\n' > ${file} && git add -A && git commit -qm 'agent: ${file}'`]);
    assert.equal(res.code, 0, res.stderr);
    const job = JSON.parse(res.stdout);
    assert.equal((await sb.waitEnded(job.id)).lifecycle.state, 'completed');
    return job;
  }

  /** Commits `file` in `dir` (the main worktree unless said). */
  function commit(file: string, text: string, message: string, dir = sb.repo): string {
    writeFileSync(join(dir, file), text);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', message);
    return git(dir, 'rev-parse', 'HEAD');
  }

  const refused = (what: string, commit: string, subject: string, target = 'main') =>
    new RegExp(`${what} ${commit.slice(0, 12)} \\(${subject}\\), which ${target} no longer has: .*nothing was changed\\.`);

  it('bug 215: git pull --rebase of the start, then its line changed again: merge --rebase and update --rebase go on as git rebase skips it; merge says its conflict', async () => {
    const m0 = commit('f.txt', 'l1\nX=orig\nl3\n', 'f: X=orig');
    commit('f.txt', 'l1\nX=a\nl3\n', 'S: X=a');
    const a = await startAgent();
    const b = await startAgent('second.txt');
    // What `git pull --rebase` does: main's own commit replayed onto what upstream got meanwhile; then the person's next change.
    git(sb.repo, 'checkout', '-q', '-b', 'up', m0);
    commit('r.txt', 'upstream\n', 'R: r.txt');
    git(sb.repo, 'checkout', '-q', 'main');
    git(sb.repo, 'rebase', '-q', 'up');
    commit('f.txt', 'l1\nX=b\nl3\n', 'T: X=b');

    const up = await cli(['update', b.id, '--rebase']);
    assert.equal(up.code, 0, up.stdout + up.stderr);
    assert.deepEqual(git(b.worktree, 'log', '--format=%s', 'main..HEAD').split('\n'), ['agent: second.txt']);
    assert.equal(readFileSync(join(b.worktree, 'f.txt'), 'utf8'), 'l1\nX=b\nl3\n');

    const before = state(sb.repo);
    const merged = await cli(['merge', a.id]);
    assert.equal(merged.code, 1, merged.stdout + merged.stderr);
    assert.match(merged.stderr, /conflicts with main in 1 file \(f\.txt\); nothing was changed/);
    assert.equal(state(sb.repo), before);

    const res = await cli(['merge', a.id, '--rebase']);
    assert.equal(res.code, 0, res.stdout + res.stderr);
    assert.deepEqual(git(sb.repo, 'log', '--format=%s', `${m0}..main`).split('\n'), ['agent: agent.txt', 'T: X=b', 'S: X=a', 'R: r.txt']);
    assert.equal(readFileSync(join(sb.repo, 'f.txt'), 'utf8'), 'l1\nX=b\nl3\n');
  });

  it('bug 215, its bound: a dropped start whose line conflicts while the rest of it would merge back clean is still refused', async () => {
    commit('f.txt', 'l1\nX=orig\nl3\n', 'f: X=orig');
    writeFileSync(join(sb.repo, 's.txt'), 'the person dropped this\n');
    const start = commit('f.txt', 'l1\nX=a\nl3\n', 'S: X=a and s.txt');
    const a = await startAgent();
    // The agent's own change makes the whole branch merge clean with what main does next.
    commit('f.txt', 'l1\nX=b\nl3\n', 'agent: X=b', a.worktree);
    git(sb.repo, 'reset', '-q', '--hard', 'HEAD~1');
    commit('f.txt', 'l1\nX=b\nl3\n', 'T: X=b');
    const before = state(sb.repo);
    for (const args of [['merge', a.id], ['merge', a.id, '--squash']]) {
      const res = await cli(args);
      assert.equal(res.code, 1, `${args.join(' ')}: ${res.stdout}${res.stderr}`);
      assert.match(res.stderr, refused('started from', start, 'S: X=a and s\\.txt'));
      assert.equal(state(sb.repo), before);
    }
    assert.equal(existsSync(join(sb.repo, 's.txt')), false);
  });

  it('bug 215, its bound: a fast-forward takes the branch whole, so a rebase landing of a branch holding the base is refused as a merge is', async () => {
    const m0 = git(sb.repo, 'rev-parse', 'HEAD');
    const start = commit('mine.txt', 'the person reverted this\n', 'S: mine.txt');
    const a = await startAgent();
    git(sb.repo, 'revert', '--no-edit', 'HEAD');
    git(sb.repo, 'checkout', '-q', '-b', 'up', m0);
    commit('r.txt', 'upstream\n', 'R: r.txt');
    git(sb.repo, 'checkout', '-q', 'main');
    git(sb.repo, 'rebase', '-q', 'up');
    // The update merges main in: main is now the branch's ancestor, and the start's change is kept on the branch's side.
    const up = await cli(['update', a.id]);
    assert.equal(up.code, 0, up.stdout + up.stderr);
    const before = state(sb.repo);
    const res = await cli(['merge', a.id, '--rebase']);
    assert.equal(res.code, 1, res.stdout + res.stderr);
    assert.match(res.stderr, refused('started from', start, 'S: mine\\.txt'));
    assert.equal(state(sb.repo), before);
    assert.equal(existsSync(join(sb.repo, 'mine.txt')), false, 'the revert was undone');
  });

  it('bug 216: a commit paddock update brought in and the base dropped after is refused by every landing; the way out lands the agent alone', async () => {
    const a = await startAgent();
    const dropped = commit('dropped.txt', 'the person took this back\n', 'D: dropped later');
    const up = await cli(['update', a.id, '--rebase']);
    assert.equal(up.code, 0, up.stdout + up.stderr);
    git(sb.repo, 'reset', '-q', '--hard', 'HEAD~1');
    commit('mine.txt', 'the person went on\n', 'main: mine.txt');
    const before = state(sb.repo);
    const agentBefore = state(a.worktree);
    for (const args of [['merge', a.id], ['merge', a.id, '--squash'], ['merge', a.id, '--rebase'], ['merge', a.id, '--no-ff'], ['apply', a.id], ['update', a.id, '--rebase']]) {
      const res = await cli(args);
      assert.equal(res.code, 1, `${args.join(' ')}: ${res.stdout}${res.stderr}`);
      assert.equal(res.stderr.trim().split('\n').length, 1, res.stderr);
      assert.match(res.stderr, refused('was updated to', dropped, 'D: dropped later'));
      assert.match(res.stderr, new RegExp(`git rebase --onto main ${dropped.slice(0, 12)}\\.`));
      assert.equal(state(sb.repo), before, `${args.join(' ')} changed the main worktree or a ref`);
      assert.equal(state(a.worktree), agentBefore, `${args.join(' ')} changed the agent's worktree`);
    }
    git(a.worktree, 'rebase', '-q', '--onto', 'main', dropped);
    const res = await cli(['merge', a.id]);
    assert.equal(res.code, 0, res.stdout + res.stderr);
    assert.equal(existsSync(join(sb.repo, 'dropped.txt')), false, 'the dropped commit came back');
    assert.equal(readFileSync(join(sb.repo, 'agent.txt'), 'utf8'), 'agent\n');

    // An update by merge brings the base in beside the agent's commits: the same.
    const b = await startAgent('second.txt');
    const dropped2 = commit('dropped2.txt', 'taken back too\n', 'D2: dropped later');
    assert.equal((await cli(['update', b.id])).code, 0);
    git(sb.repo, 'reset', '-q', '--hard', 'HEAD~1');
    commit('mine2.txt', 'on again\n', 'main: mine2.txt');
    const merged = await cli(['merge', b.id]);
    assert.equal(merged.code, 1, merged.stdout + merged.stderr);
    assert.match(merged.stderr, refused('was updated to', dropped2, 'D2: dropped later'));
  });

  it('bug 217: pr refuses a commit dropped from the local base before it was pushed; one the remote base still has is not proposed, and goes on', async () => {
    const remote = join(sb.repo, '..', 'remote.git');
    git(sb.repo, 'init', '-q', '--bare', remote);
    git(sb.repo, 'remote', 'add', 'origin', remote);
    git(sb.repo, 'push', '-q', '-u', 'origin', 'main');
    const start = commit('dropped.txt', 'never pushed\n', 'S: never pushed');
    const a = await startAgent();
    git(sb.repo, 'reset', '-q', '--hard', 'HEAD~1');
    commit('mine.txt', 'the person went on\n', 'main: mine.txt');
    const remoteBefore = git(remote, 'for-each-ref');
    const res = await cli(['pr', a.id]);
    assert.equal(res.code, 1, res.stdout + res.stderr);
    assert.equal(res.stderr.trim().split('\n').length, 1, res.stderr);
    assert.match(res.stderr, refused('started from', start, 'S: never pushed'));
    assert.match(res.stderr, new RegExp(`git rebase --onto main ${start.slice(0, 12)}\\.`));
    assert.equal(git(remote, 'for-each-ref'), remoteBefore, 'nothing pushed');

    // Pushed first, then dropped locally only: the remote's main has it, so the pull request does not propose it.
    git(sb.repo, 'push', '-q', '-f', 'origin', 'main');
    commit('pushed.txt', 'pushed\n', 'S2: pushed');
    git(sb.repo, 'push', '-q', 'origin', 'main');
    const b = await startAgent('second.txt');
    git(sb.repo, 'reset', '-q', '--hard', 'HEAD~1');
    const pr = await cli(['pr', b.id]);
    assert.equal(pr.code, 0, pr.stdout + pr.stderr);
    assert.equal(git(remote, 'rev-parse', `refs/heads/${b.branch}`), git(b.worktree, 'rev-parse', 'HEAD'));
  });

  it("bug 218: apply on a detached HEAD the person moved back is refused; the way out names HEAD's commit", async () => {
    const start = commit('dropped.txt', 'the person took this back\n', 'S: dropped');
    const a = await startAgent();
    git(sb.repo, 'reset', '-q', '--hard', 'HEAD~1');
    const head = commit('mine.txt', 'the person went on\n', 'main: mine.txt');
    git(sb.repo, 'checkout', '-q', '--detach');
    const before = state(sb.repo);
    const res = await cli(['apply', a.id]);
    assert.equal(res.code, 1, res.stdout + res.stderr);
    assert.equal(res.stderr.trim().split('\n').length, 1, res.stderr);
    assert.match(res.stderr, refused('started from', start, 'S: dropped', 'the detached HEAD'));
    assert.match(res.stderr, new RegExp(`git rebase --onto ${head.slice(0, 12)} ${start.slice(0, 12)}\\.`));
    assert.equal(state(sb.repo), before);
  });
});
