/**
 * `paddock pr` stopped at other points than bug 135's (second review): before its push reached the
 * remote, then merged and pushed by the person (the branch never pushed, its missing remote-tracking
 * branch read as pruned: a false found-later pull request); after its push, then squash-merged on the
 * host and the branch deleted there and pruned here (the next run pushed the deleted branch back and
 * recorded a fresh one); a Ctrl-C during a slow push (the CLI died, the push went on unrecorded).
 * The remote looks like GitHub's (its pushes go to a bare repository, pushurl), so a fake gh runs
 * after the push; it kills the CLI once when told to, the way a kill after the push lands.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI_SCRIPT as CLI, CoordinatorSandbox, git, runCli, useCoordinatorSandbox } from '../core/coordinator/coordinatorFixture';

describe('CLI: a pull request stopped before its push, or after it and then squash-merged', function () {
  this.timeout(120_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  let bare = '';
  let env: NodeJS.ProcessEnv = {};
  const cli = (args: string[]) => runCli(args, { cwd: sb.repo, env, input: '' });
  const pidFile = () => join(sb.root, 'kill-pid');
  const ghKills = () => join(sb.root, 'gh-kills');
  const remoteBranches = () => git(bare, 'for-each-ref', '--format=%(refname)', 'refs/heads');
  /** A fetch from the bare repository into origin's remote-tracking branches (origin's URL is GitHub's). */
  const fetchPruning = () => git(sb.repo, 'fetch', '-q', '--prune', bare, '+refs/heads/*:refs/remotes/origin/*');

  /** `paddock pr` run to its end or its kill; resolves with the signal that ended it. */
  function prRun(id: string): Promise<NodeJS.Signals | null> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [CLI, 'pr', id], { cwd: sb.repo, env, stdio: 'ignore' });
      writeFileSync(pidFile(), String(child.pid));
      child.on('close', (_code, signal) => resolve(signal));
    });
  }

  async function endedAgent(): Promise<{ id: string; branch: string; head: string }> {
    const started = await cli(['start', '--json', '--title', 'the agent', '--', 'sh', '-c', `printf 'a\\n' > a.txt && git add -A && git commit -qm a`]);
    assert.equal(started.code, 0, started.stderr);
    const { id, branch } = JSON.parse(started.stdout) as { id: string; branch: string };
    assert.equal((await sb.waitEnded(id)).lifecycle.state, 'completed');
    return { id, branch, head: git(sb.repo, 'rev-parse', branch) };
  }

  /** A pre-push hook: `kill` kills the CLI before the push reaches the remote; `sleep` makes the push slow. */
  function prePush(body: string): void {
    writeFileSync(join(sb.repo, '.git', 'hooks', 'pre-push'), `#!/bin/sh\n${body}\nexit 0\n`, { mode: 0o755 });
  }

  beforeEach(() => {
    bare = join(sb.root, 'remote.git');
    git(sb.root, 'init', '-q', '--bare', bare);
    git(sb.repo, 'remote', 'add', 'origin', 'https://github.com/o/r.git');
    git(sb.repo, 'remote', 'set-url', '--push', 'origin', bare);
    git(sb.repo, 'push', '-q', 'origin', 'main');
    fetchPruning();
    const bin = join(sb.root, 'bin');
    mkdirSync(bin);
    // gh: logged in; `pr create` kills its parent (the CLI) once when told to, else opens pull request 12.
    writeFileSync(
      join(bin, 'gh'),
      `#!/bin/sh\n[ "$1" = auth ] && exit 0\nif [ "$1" = pr ]; then\n  if [ -f '${ghKills()}' ]; then rm -f '${ghKills()}'; kill -9 "$PPID"; sleep 5; fi\n  echo https://github.com/o/r/pull/12; exit 0\nfi\nexit 2\n`,
    );
    chmodSync(join(bin, 'gh'), 0o755);
    env = { ...sb.env, PATH: `${bin}:${sb.env.PATH}` };
  });

  for (const clone of ['every branch fetched', 'a single-branch clone'] as const) {
    it(`killed before its push reached the remote, then merged here and main pushed (${clone}): the branch was never pushed, nothing is recorded`, async () => {
      if (clone === 'a single-branch clone') git(sb.repo, 'config', 'remote.origin.fetch', '+refs/heads/main:refs/remotes/origin/main');
      const { id, branch } = await endedAgent();
      prePush(`if [ -f '${pidFile()}' ]; then kill -9 "$(cat '${pidFile()}')"; rm -f '${pidFile()}'; exit 1; fi`);
      assert.equal(await prRun(id), 'SIGKILL');
      assert.ok(!remoteBranches().includes(branch), 'the push never reached the remote');
      git(sb.repo, 'merge', '-q', '--ff-only', branch);
      git(sb.repo, 'push', '-q', 'origin', 'main');
      fetchPruning();
      const res = await cli(['pr', id]);
      assert.equal(res.code, 1, res.stdout);
      assert.match(res.stderr, /origin\/main already has every commit of .*there is nothing to propose and nothing was pushed/);
      assert.equal((await sb.store.read(id)).landing ?? null, null);
    });
  }

  it('killed after its push (single-branch clone, no remote-tracking branch set), then merged on the host: the next run records it', async () => {
    git(sb.repo, 'config', 'remote.origin.fetch', '+refs/heads/main:refs/remotes/origin/main');
    const { id, branch, head } = await endedAgent();
    writeFileSync(ghKills(), '');
    assert.equal(await prRun(id), 'SIGKILL');
    assert.equal(git(bare, 'rev-parse', `refs/heads/${branch}`), head);
    assert.equal((await sb.store.read(id)).landing ?? null, null);
    git(bare, 'update-ref', 'refs/heads/main', head);
    git(sb.repo, 'fetch', '-q', bare, '+refs/heads/main:refs/remotes/origin/main');
    const res = await cli(['pr', id]);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /was already pushed to origin by a pull request stopped before it was recorded, and origin\/main has every commit of it now; recorded now, not pushed again/);
    const landing = (await sb.store.read(id)).landing!;
    assert.deepEqual({ kind: landing.kind, commit: landing.commit, foundLater: landing.foundLater }, { kind: 'pr', commit: head, foundLater: true });
  });

  it('killed after its push, then squash-merged on the host, its branch deleted there and pruned here: recorded, never pushed back', async () => {
    const { id, branch, head } = await endedAgent();
    writeFileSync(ghKills(), '');
    assert.equal(await prRun(id), 'SIGKILL');
    assert.equal(git(bare, 'rev-parse', `refs/heads/${branch}`), head);
    // GitHub's "Squash and merge" (a new commit with the branch's tree), then "Delete branch"; a pruning fetch.
    git(bare, 'update-ref', 'refs/heads/main', git(bare, 'commit-tree', `${head}^{tree}`, '-p', 'refs/heads/main', '-m', 'squash'));
    git(bare, 'update-ref', '-d', `refs/heads/${branch}`);
    fetchPruning();
    const res = await cli(['pr', id]);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /was already pushed to origin by a pull request stopped before it was recorded; recorded now, not pushed again; its compare page/);
    assert.ok(!remoteBranches().includes(branch), 'the deleted branch was not pushed back');
    const landing = (await sb.store.read(id)).landing!;
    assert.deepEqual({ kind: landing.kind, commit: landing.commit, foundLater: landing.foundLater }, { kind: 'pr', commit: head, foundLater: true });
  });

  it('gh failed after the push: the next run asks gh again rather than take the pull request as open', async () => {
    const { id } = await endedAgent();
    const gh = join(sb.root, 'bin', 'gh');
    const working = `#!/bin/sh\n[ "$1" = auth ] && exit 0\n[ "$1" = pr ] && echo https://github.com/o/r/pull/12 && exit 0\nexit 2\n`;
    writeFileSync(gh, working.replace('echo https://github.com/o/r/pull/12 && exit 0', 'echo "GraphQL: something went wrong" >&2 && exit 1'));
    const failed = await cli(['pr', id]);
    assert.equal(failed.code, 1, failed.stdout);
    assert.match(failed.stderr, /gh pr create failed/);
    writeFileSync(gh, working);
    const res = await cli(['pr', id]);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /^Pushed .*; pull request: https:\/\/github.com\/o\/r\/pull\/12/);
    assert.equal((await sb.store.read(id)).landing!.foundLater, undefined);
  });

  it('a Ctrl-C during a slow push: the push finishes and is recorded, and the CLI says so', async () => {
    const { id, branch, head } = await endedAgent();
    const pushing = join(sb.root, 'pushing');
    prePush(`touch '${pushing}'; sleep 2`);
    // A terminal's Ctrl-C goes to the foreground group: the CLI's (git runs in a session of its own).
    const child = spawn(process.execPath, [CLI, 'pr', id], { cwd: sb.repo, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const done = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('close', (code, signal) => resolve([code, signal])));
    for (let i = 0; i < 400 && !existsSync(pushing); i++) await new Promise((r) => setTimeout(r, 25));
    assert.ok(existsSync(pushing), 'the push began');
    process.kill(-child.pid!, 'SIGINT');
    assert.deepEqual(await done, [0, null], stderr);
    assert.match(stderr, /^Interrupted: finishing the push under way and its record/);
    assert.equal(git(bare, 'rev-parse', `refs/heads/${branch}`), head);
    const landing = (await sb.store.read(id)).landing!;
    assert.deepEqual({ kind: landing.kind, commit: landing.commit, url: landing.url }, { kind: 'pr', commit: head, url: 'https://github.com/o/r/pull/12' });
  });
});
