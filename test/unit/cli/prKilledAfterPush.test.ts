/**
 * A `paddock pr` SIGKILLed once its push had gone through and before it was recorded (bug 135):
 * the branch was on the remote, the record said nothing. Once the pull request was merged (the
 * remote's base then has every commit), the next run said *there is nothing to propose and nothing
 * was pushed* (exit 1) and never recorded it, so the agent never showed its pull request. The pull
 * request now writes a trace in the agent's history before it pushes; the next run records the
 * earlier one when that trace names this very tip and remote and the push went through, and says
 * so. A push the person made by hand leaves no trace: nothing is recorded for it.
 * The kill comes from a reference-transaction hook, when the push updates the remote-tracking branch:
 * before the `pr-pushed` line (prStoppedRuns.test.ts kills the run after that line, from gh).
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StoreLayout } from '../../../src/core/store/paths';
import { CLI_SCRIPT as CLI, CoordinatorSandbox, git, runCli, useCoordinatorSandbox } from '../core/coordinator/coordinatorFixture';

describe('CLI: a pull request killed after its push is recorded by the next run', function () {
  this.timeout(120_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  const cli = (args: string[]) => runCli(args, { cwd: sb.repo, env: sb.env, input: '' });
  const pidFile = () => join(sb.root, 'kill-pid');
  let bare = '';

  /** `paddock pr` killed by the hook once the push has updated the remote-tracking branch; resolves when it is dead. */
  function killedAfterPush(args: string[]): Promise<NodeJS.Signals | null> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [CLI, ...args], { cwd: sb.repo, env: sb.env, stdio: 'ignore' });
      writeFileSync(pidFile(), String(child.pid));
      child.on('close', (_code, signal) => resolve(signal));
    });
  }

  async function endedAgent(): Promise<{ id: string; branch: string }> {
    const script = `printf 'a\\n' > a.txt && git add -A && git commit -qm a`;
    const started = await cli(['start', '--json', '--title', 'the agent', '--', 'sh', '-c', script]);
    assert.equal(started.code, 0, started.stderr);
    const { id, branch } = JSON.parse(started.stdout) as { id: string; branch: string };
    assert.equal((await sb.waitEnded(id)).lifecycle.state, 'completed');
    return { id, branch };
  }

  /** The pull request merged on the host (the remote's main fast-forwarded to the branch), then fetched. */
  function mergedOnTheRemote(branch: string): void {
    git(bare, 'update-ref', 'refs/heads/main', git(bare, 'rev-parse', `refs/heads/${branch}`));
    git(sb.repo, 'fetch', '-q', 'origin');
  }

  beforeEach(() => {
    bare = join(sb.root, 'remote.git');
    git(sb.root, 'init', '-q', '--bare', bare);
    git(sb.repo, 'remote', 'add', 'origin', bare);
    git(sb.repo, 'push', '-q', 'origin', 'main');
    // Kills the process named in the pid file (once) when a remote-tracking branch's move is committed.
    const hook = join(sb.repo, '.git', 'hooks', 'reference-transaction');
    writeFileSync(
      hook,
      `#!/bin/sh\n[ "$1" = committed ] || exit 0\ngrep -q ' refs/remotes/' || exit 0\nif [ -f '${pidFile()}' ]; then kill -9 "$(cat '${pidFile()}')"; rm -f '${pidFile()}'; fi\nexit 0\n`,
      { mode: 0o755 },
    );
  });

  it('killed after the push, then merged on the host: the next run records it (once), says so, and show says it was found later', async () => {
    const { id, branch } = await endedAgent();
    const head = git(sb.repo, 'rev-parse', branch);
    assert.equal(await killedAfterPush(['pr', id]), 'SIGKILL');
    assert.equal(git(bare, 'rev-parse', `refs/heads/${branch}`), head, 'the push went through before the kill');
    assert.equal((await sb.store.read(id)).landing ?? null, null, 'and nothing was recorded');
    mergedOnTheRemote(branch);

    const again = await cli(['pr', id]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, new RegExp(`${branch.replace('/', '\\/')} was already pushed to origin by a pull request stopped before it was recorded, and origin/main has every commit of it now; recorded now`));
    const landing = (await sb.store.read(id)).landing!;
    assert.deepEqual(
      { kind: landing.kind, into: landing.into, commit: landing.commit, foundLater: landing.foundLater },
      { kind: 'pr', into: 'origin/main', commit: head, foundLater: true },
    );
    const shown = await cli(['show', id]);
    assert.match(shown.stdout, /work:\s+branch pushed \(stopped before it was recorded; found later\)/);

    const third = await cli(['pr', id]);
    assert.equal(third.code, 1, third.stdout);
    assert.match(third.stderr, /already has every commit of .*nothing was pushed/);
    assert.equal((await sb.store.read(id)).landing!.at, landing.at, 'a recorded pull request is not recorded again');
  });

  it('a push the person made by hand, merged on the host, proves nothing: nothing is recorded', async () => {
    const { id, branch } = await endedAgent();
    git(sb.repo, 'push', '-q', 'origin', branch);
    mergedOnTheRemote(branch);
    const res = await cli(['pr', id]);
    assert.equal(res.code, 1, res.stdout);
    assert.match(res.stderr, /main already has every commit of .*there is nothing to propose and nothing was pushed/);
    assert.equal((await sb.store.read(id)).landing ?? null, null);
  });

  it('a pull request whose push was refused, the commits then merged into the remote main by other means: never pushed, nothing is recorded', async () => {
    const { id, branch } = await endedAgent();
    // The person's pre-push hook refuses Paddock's branches only: the trace is written, the push refused.
    writeFileSync(join(sb.repo, '.git', 'hooks', 'pre-push'), `#!/bin/sh\nif grep -q ' refs/heads/paddock/'; then exit 1; fi\nexit 0\n`, { mode: 0o755 });
    const refused = await cli(['pr', id]);
    assert.equal(refused.code, 1, refused.stdout);
    assert.match(refused.stderr, /pre-push hook/);
    git(sb.repo, 'push', '-q', 'origin', `${branch}:main`);
    const res = await cli(['pr', id]);
    assert.equal(res.code, 1, res.stdout);
    assert.match(res.stderr, /there is nothing to propose and nothing was pushed/);
    assert.equal((await sb.store.read(id)).landing ?? null, null);
  });

  it('killed in the instant between its push and the history line saying so, merged, its branch deleted there and pruned here: nothing is recorded, nothing pushed back', async () => {
    // The limit left (docs/reliability.md, bug 135): with neither that line nor the remote-tracking
    // branch, nothing tells this push from none (a run killed before its push), so nothing is recorded.
    const { id, branch } = await endedAgent();
    const head = git(sb.repo, 'rev-parse', branch);
    assert.equal(await killedAfterPush(['pr', id]), 'SIGKILL');
    assert.deepEqual((await sb.store.readTimeline(id)).filter((e) => e.type.startsWith('pr-')).map((e) => e.type), ['pr-started']);
    git(bare, 'update-ref', 'refs/heads/main', head);
    git(bare, 'update-ref', '-d', `refs/heads/${branch}`);
    git(sb.repo, 'fetch', '-q', '--prune', 'origin');
    const again = await cli(['pr', id]);
    assert.equal(again.code, 1, again.stdout);
    assert.match(again.stderr, /origin\/main already has every commit of .*there is nothing to propose and nothing was pushed/);
    assert.equal((await sb.store.read(id)).landing ?? null, null);
    assert.throws(() => git(bare, 'rev-parse', '--verify', `refs/heads/${branch}`), 'the deleted branch was not pushed back');
  });

  it('killed after the push, then merged here and the merge recorded: a later run never records the pull request over the merge', async () => {
    const { id, branch } = await endedAgent();
    assert.equal(await killedAfterPush(['pr', id]), 'SIGKILL');
    const merged = await cli(['merge', id, '--into', 'main']);
    assert.equal(merged.code, 0, merged.stderr);
    const landing = (await sb.store.read(id)).landing!;
    assert.equal(landing.kind, 'ff');
    git(sb.repo, 'push', '-q', 'origin', 'main');
    const res = await cli(['pr', id]);
    assert.equal(res.code, 1, res.stdout);
    assert.match(res.stderr, /there is nothing to propose and nothing was pushed/);
    assert.deepEqual((await sb.store.read(id)).landing, landing, 'the merge stays recorded');
    // Its history line lost (best effort: a full disk), the record's newer landing says the same.
    const timeline = new StoreLayout(sb.home).timelineFile(id);
    writeFileSync(timeline, readFileSync(timeline, 'utf8').split('\n').filter((l) => !l.includes('"type":"landing"')).join('\n'));
    const again = await cli(['pr', id]);
    assert.equal(again.code, 1, again.stdout);
    assert.deepEqual((await sb.store.read(id)).landing, landing);
    void branch;
  });

  it('killed after the push to a remote whose base was never fetched, then merged into the local base: nothing is recorded', async () => {
    const { id, branch } = await endedAgent();
    const fork = join(sb.root, 'fork.git');
    git(sb.root, 'init', '-q', '--bare', fork);
    git(sb.repo, 'remote', 'add', 'fork', fork);
    assert.equal(await killedAfterPush(['pr', id, '--remote', 'fork']), 'SIGKILL');
    // fork's main does not exist: the local main has the commits, the remote's base never got them.
    git(sb.repo, 'merge', '-q', '--ff-only', branch);
    const res = await cli(['pr', id, '--remote', 'fork']);
    assert.equal(res.code, 1, res.stdout);
    assert.match(res.stderr, /main already has every commit of .*nothing was pushed/);
    assert.equal((await sb.store.read(id)).landing ?? null, null);
  });

  it('a refused push, then the person pushes the branch by hand and it is merged: the failed push proves nothing, pruned or not', async () => {
    const { id, branch } = await endedAgent();
    const hook = join(sb.repo, '.git', 'hooks', 'pre-push');
    writeFileSync(hook, `#!/bin/sh\nexit 1\n`, { mode: 0o755 });
    const refused = await cli(['pr', id]);
    assert.equal(refused.code, 1, refused.stdout);
    assert.ok((await sb.store.readTimeline(id)).some((e) => e.type === 'pr-push-failed'), 'the failure is in the history');
    rmSync(hook);
    git(sb.repo, 'push', '-q', 'origin', branch);
    mergedOnTheRemote(branch);
    const res = await cli(['pr', id]);
    assert.equal(res.code, 1, res.stdout);
    assert.match(res.stderr, /there is nothing to propose and nothing was pushed/);
    assert.equal((await sb.store.read(id)).landing ?? null, null);
    git(bare, 'update-ref', '-d', `refs/heads/${branch}`);
    git(sb.repo, 'fetch', '-q', '--prune', 'origin');
    const pruned = await cli(['pr', id]);
    assert.equal(pruned.code, 1, pruned.stdout);
    assert.equal((await sb.store.read(id)).landing ?? null, null);
  });

  it('killed after the push, then the agent committed again: the trace names another tip, and the new tip is pushed as usual', async () => {
    const { id, branch } = await endedAgent();
    assert.equal(await killedAfterPush(['pr', id]), 'SIGKILL');
    const worktree = (await sb.store.read(id)).worktree!;
    writeFileSync(join(worktree, 'b.txt'), 'b\n');
    git(worktree, 'add', '-A');
    git(worktree, 'commit', '-qm', 'b');
    const res = await cli(['pr', id]);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /^Pushed /);
    const landing = (await sb.store.read(id)).landing!;
    assert.equal(landing.commit, git(sb.repo, 'rev-parse', branch));
    assert.equal(landing.foundLater, undefined);
  });
});
