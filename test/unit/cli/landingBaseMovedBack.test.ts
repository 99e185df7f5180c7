/**
 * Bug 185: a base branch moved back (`reset --hard`) after the agent started. The agent's branch still
 * holds the commit the person dropped; merge (every strategy), apply and update --rebase brought it
 * back as the agent's work without a word. Each is now refused in one sentence with every ref, the
 * index's bytes and every file as before; landing only the agent's own commits, or landing on a
 * branch that never had the start, goes on as before; so does a base rewritten with the same changes
 * (`git pull --rebase`, a message-only amend, the start squashed with others), which drops nothing,
 * while a revert of the start kept through `git pull --rebase` is still refused. Bug 187: `pr` against a remote
 * base force-pushed back pushed the agent's branch, proposing the dropped commit again; and
 * `update --rebase` onto such a remote base replayed it, after which `pr` could not tell.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinatorSandbox, git, runCli, useCoordinatorSandbox } from '../core/coordinator/coordinatorFixture';

/** Every ref, the index file's bytes and every file of `dir` outside .git, byte for byte. */
function state(dir: string): string {
  const files = (d: string, rel = ''): string[] =>
    readdirSync(join(d, rel), { withFileTypes: true })
      .filter((e) => e.name !== '.git')
      .sort((a, b) => a.name.localeCompare(b.name))
      .flatMap((e) => (e.isDirectory() ? files(d, join(rel, e.name)) : [`${join(rel, e.name)}=${readFileSync(join(d, rel, e.name)).toString('base64')}`]));
  const gitDir = git(dir, 'rev-parse', '--absolute-git-dir');
  return [git(dir, 'for-each-ref'), git(dir, 'rev-parse', 'HEAD'), readFileSync(join(gitDir, 'index')).toString('base64'), ...files(dir)].join('\n');
}

describe('CLI: landing on a base moved back since the agent started (bug 185)', function () {
  this.timeout(120_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  const cli = (args: string[]) => runCli(args, { cwd: sb.repo, env: sb.env, input: '' });

  /** Starts an agent (`extra`: start's options) that commits `file`, and waits for it to complete. */
  async function startAgent(extra: string[] = [], file = 'agent.txt'): Promise<{ id: string; worktree: string; branch: string }> {
    const res = await cli(['start', '--json', '--title', 'agent', ...extra, '--', 'sh', '-c', `printf 'agent\\n' > ${file} && git add -A && git commit -qm 'agent: ${file}'`]);
    assert.equal(res.code, 0, res.stderr);
    const job = JSON.parse(res.stdout);
    assert.equal((await sb.waitEnded(job.id)).lifecycle.state, 'completed');
    return job;
  }

  /** Commits `file` in the main worktree. */
  function commit(file: string, text: string, message: string): string {
    writeFileSync(join(sb.repo, file), text);
    git(sb.repo, 'add', '-A');
    git(sb.repo, 'commit', '-qm', message);
    return git(sb.repo, 'rev-parse', 'HEAD');
  }

  /** main gets "dropped commit", the agent starts on it and commits; then the person drops it with reset --hard and commits on (`push`: to origin each time, forced the second). */
  async function movedBack(push = false): Promise<{ id: string; worktree: string; branch: string; start: string }> {
    const start = commit('dropped.txt', 'the person took this back\n', 'dropped commit');
    if (push) git(sb.repo, 'push', '-q', 'origin', 'main');
    const job = await startAgent();
    git(sb.repo, 'reset', '-q', '--hard', 'HEAD~1');
    commit('mine.txt', 'the person went on\n', 'main: mine.txt');
    if (push) git(sb.repo, 'push', '-q', '-f', 'origin', 'main');
    return { ...job, start };
  }

  it('merge (every strategy), apply and update --rebase are refused in one sentence, every ref, the index and every file as before', async () => {
    const a = await movedBack();
    const before = state(sb.repo);
    const agentBefore = state(a.worktree);
    for (const args of [['merge', a.id], ['merge', a.id, '--squash'], ['merge', a.id, '--rebase'], ['merge', a.id, '--no-ff'], ['merge', a.id, '--ff-only'], ['apply', a.id], ['update', a.id, '--rebase']]) {
      const res = await cli(args);
      assert.equal(res.code, 1, `${args.join(' ')}: ${res.stdout}${res.stderr}`);
      assert.equal(res.stderr.trim().split('\n').length, 1, res.stderr);
      assert.match(res.stderr, new RegExp(`started from ${a.start.slice(0, 12)} \\(dropped commit\\), which main no longer has: .*nothing was changed\\. .*git rebase --onto main ${a.start.slice(0, 12)}\\.`));
      assert.equal(state(sb.repo), before, `${args.join(' ')} changed the main worktree or a ref`);
      assert.equal(state(a.worktree), agentBefore, `${args.join(' ')} changed the agent's worktree`);
    }
    assert.equal(JSON.parse((await cli(['show', a.id, '--json'])).stdout).landing, null);
  });

  // Bug 187: the same through a pull request, the remote's main force-pushed back (its remote-tracking branch's reflog shows it).
  it('pr against a remote base moved back is refused before anything is pushed; the remote and every local ref as before', async () => {
    const remote = join(sb.repo, '..', 'remote.git');
    git(sb.repo, 'init', '-q', '--bare', remote);
    git(sb.repo, 'remote', 'add', 'origin', remote);
    const a = await movedBack(true);
    const before = state(sb.repo);
    const remoteBefore = git(remote, 'for-each-ref');
    const res = await cli(['pr', a.id]);
    assert.equal(res.code, 1, res.stdout + res.stderr);
    assert.equal(res.stderr.trim().split('\n').length, 1, res.stderr);
    assert.match(res.stderr, new RegExp(`started from ${a.start.slice(0, 12)} \\(dropped commit\\), which origin/main no longer has: .*nothing was changed\\. .*git rebase --onto origin/main ${a.start.slice(0, 12)}\\.`));
    assert.equal(git(remote, 'for-each-ref'), remoteBefore, 'nothing pushed');
    assert.equal(state(sb.repo), before);
    assert.equal(JSON.parse((await cli(['show', a.id, '--json'])).stdout).landing, null);
  });

  it("once the agent's own commits are rebased off the dropped one, they land without it; a branch that never had the start takes the merge as git makes it", async () => {
    const a = await movedBack();
    git(sb.repo, 'branch', 'release', 'HEAD~1');
    const into = await cli(['merge', a.id, '--into', 'release', '--no-ff']);
    assert.equal(into.code, 0, into.stderr);
    assert.equal(git(sb.repo, 'merge-base', '--is-ancestor', a.start, 'release'), '');

    git(a.worktree, 'rebase', '-q', '--onto', 'main', a.start);
    const res = await cli(['merge', a.id]);
    assert.equal(res.code, 0, res.stderr);
    assert.equal(readFileSync(join(sb.repo, 'agent.txt'), 'utf8'), 'agent\n');
    assert.equal(existsSync(join(sb.repo, 'dropped.txt')), false, 'the dropped commit came back');
  });

  it('a base rewritten with the same changes (git pull --rebase, a message-only amend, the start squashed) drops nothing: merge --rebase, update --rebase and merge go on', async () => {
    const m0 = git(sb.repo, 'rev-parse', 'HEAD');
    commit('mine.txt', 'a local commit\n', 'S: mine.txt');
    const a = await startAgent();
    // What `git pull --rebase` does: main's own commit replayed onto what upstream got meanwhile.
    git(sb.repo, 'checkout', '-q', '-b', 'up', m0);
    commit('r.txt', 'upstream\n', 'R: r.txt');
    git(sb.repo, 'checkout', '-q', 'main');
    git(sb.repo, 'rebase', '-q', 'up');
    const res = await cli(['merge', a.id, '--rebase']);
    assert.equal(res.code, 0, res.stdout + res.stderr);
    assert.deepEqual(git(sb.repo, 'log', '--format=%s', `${m0}..main`).split('\n'), ['agent: agent.txt', 'S: mine.txt', 'R: r.txt']);

    // A message-only amend of the commit a second agent started from, and main on from there.
    commit('two.txt', 'two\n', 'S2: two.txt');
    const b = await startAgent([], 'second.txt');
    git(sb.repo, 'commit', '-q', '--amend', '-m', 'S2: two.txt, reworded');
    commit('three.txt', 'three\n', 'main: three.txt');
    const up = await cli(['update', b.id, '--rebase']);
    assert.equal(up.code, 0, up.stdout + up.stderr);
    assert.deepEqual(git(b.worktree, 'log', '--format=%s', 'main..HEAD').split('\n'), ['agent: second.txt']);

    // The start squashed with the commit before it: neither's patch is main's, yet main has all their changes.
    commit('four.txt', 'four\n', 'A: four.txt');
    commit('five.txt', 'five\n', 'S3: five.txt');
    const c = await startAgent([], 'third.txt');
    git(sb.repo, 'reset', '-q', '--soft', 'HEAD~2');
    git(sb.repo, 'commit', '-qm', 'A+S3 squashed');
    const squashed = git(sb.repo, 'rev-parse', 'HEAD');
    const merged = await cli(['merge', c.id]);
    assert.equal(merged.code, 0, merged.stdout + merged.stderr);
    assert.deepEqual(git(sb.repo, 'diff', '--name-only', squashed, 'main').split('\n'), ['third.txt']);
  });

  it('a revert on the base then git pull --rebase (the start replayed with its revert): merge (every strategy) and apply are refused, nothing changed', async () => {
    const m0 = git(sb.repo, 'rev-parse', 'HEAD');
    const start = commit('mine.txt', 'the person reverted this\n', 'S: mine.txt');
    const a = await startAgent();
    git(sb.repo, 'revert', '--no-edit', 'HEAD');
    git(sb.repo, 'checkout', '-q', '-b', 'up', m0);
    commit('r.txt', 'upstream\n', 'R: r.txt');
    git(sb.repo, 'checkout', '-q', 'main');
    git(sb.repo, 'rebase', '-q', 'up');
    // S's copy pairs with S by patch-id, while the revert after it keeps its change off main.
    assert.equal(existsSync(join(sb.repo, 'mine.txt')), false);
    const before = state(sb.repo);
    for (const args of [['merge', a.id], ['merge', a.id, '--squash'], ['merge', a.id, '--no-ff'], ['apply', a.id]]) {
      const res = await cli(args);
      assert.equal(res.code, 1, `${args.join(' ')}: ${res.stdout}${res.stderr}`);
      assert.equal(res.stderr.trim().split('\n').length, 1, res.stderr);
      assert.match(res.stderr, new RegExp(`started from ${start.slice(0, 12)} \\(S: mine\\.txt\\), which main no longer has: .*nothing was changed\\.`));
      assert.equal(state(sb.repo), before, `${args.join(' ')} changed the main worktree or a ref`);
    }
  });

  it('update --rebase onto a remote base (origin/develop, no local develop) force-pushed back is refused, and pr after it; nothing pushed', async () => {
    const remote = join(sb.repo, '..', 'remote.git');
    git(sb.repo, 'init', '-q', '--bare', remote);
    git(sb.repo, 'remote', 'add', 'origin', remote);
    const m0 = git(sb.repo, 'rev-parse', 'HEAD');
    git(sb.repo, 'checkout', '-q', '-b', 'tmp');
    const start = commit('dropped.txt', 'the remote took this back\n', 'dropped commit');
    git(sb.repo, 'push', '-q', 'origin', 'tmp:develop');
    git(sb.repo, 'checkout', '-q', 'main');
    git(sb.repo, 'branch', '-q', '-D', 'tmp');
    git(sb.repo, 'fetch', '-q', 'origin');
    const a = await startAgent(['--base', 'origin/develop']);
    // develop force-pushed back past the start, and on from there.
    const went = git(sb.repo, 'commit-tree', `${m0}^{tree}`, '-p', m0, '-m', 'develop went on');
    git(sb.repo, 'push', '-q', '-f', 'origin', `${went}:refs/heads/develop`);
    const before = state(sb.repo);
    const agentBefore = state(a.worktree);
    const remoteBefore = git(remote, 'for-each-ref');
    const sentence = new RegExp(`started from ${start.slice(0, 12)} \\(dropped commit\\), which origin/develop no longer has: .*nothing was changed\\. .*git rebase --onto origin/develop ${start.slice(0, 12)}\\.`);
    for (const args of [['update', a.id, '--rebase'], ['pr', a.id]]) {
      const res = await cli(args);
      assert.equal(res.code, 1, `${args.join(' ')}: ${res.stdout}${res.stderr}`);
      assert.equal(res.stderr.trim().split('\n').length, 1, res.stderr);
      assert.match(res.stderr, sentence);
      assert.equal(state(a.worktree), agentBefore, `${args.join(' ')} changed the agent's worktree`);
    }
    assert.equal(git(remote, 'for-each-ref'), remoteBefore, 'nothing pushed');
    assert.equal(state(sb.repo), before);
  });
});
