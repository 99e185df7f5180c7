/**
 * A landing SIGKILLed once its target had moved and before it was recorded (bug 118): run again,
 * it found nothing left to land — a squash "changes nothing", a rebase's "changes are already in",
 * a merge's or fast-forward's "already has every commit" — and the record never had a `landing`,
 * so Clean Up kept the branch as holding unmerged work (a squash or rebase) and the agent never
 * showed as landed. Run again, it now records the earlier landing, only when the target's reflog
 * and the commits prove it was this very tip landed by Paddock; the person's own squash of the
 * same changes proves nothing, and a landing recorded already is not recorded twice.
 * The kill comes from a reference-transaction hook, right after the move is committed. What was
 * found is said after (bug 136): the landing is marked `foundLater`, and `show` says it was stopped
 * before it was recorded.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI_SCRIPT as CLI, CoordinatorSandbox, git, runCli, useCoordinatorSandbox } from '../core/coordinator/coordinatorFixture';

describe('CLI: a landing killed after its target moved is recorded by the next run', function () {
  this.timeout(120_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  const cli = (args: string[]) => runCli(args, { cwd: sb.repo, env: sb.env, input: '' });
  const pidFile = () => join(sb.root, 'kill-pid');

  /** `paddock merge` killed by the hook once the target's move is committed; resolves when it is dead. */
  function killedAfterMove(args: string[]): Promise<NodeJS.Signals | null> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [CLI, ...args], { cwd: sb.repo, env: sb.env, stdio: 'ignore' });
      writeFileSync(pidFile(), String(child.pid));
      child.on('close', (_code, signal) => resolve(signal));
    });
  }

  async function endedAgent(): Promise<{ id: string; branch: string }> {
    const script = `printf 'a\\n' > a.txt && git add -A && git commit -qm a && printf 'b\\n' > b.txt && git add -A && git commit -qm b`;
    const started = await cli(['start', '--json', '--title', 'the agent', '--', 'sh', '-c', script]);
    assert.equal(started.code, 0, started.stderr);
    const { id, branch } = JSON.parse(started.stdout) as { id: string; branch: string };
    assert.equal((await sb.waitEnded(id)).lifecycle.state, 'completed');
    return { id, branch };
  }

  beforeEach(() => {
    // Kills the process named in the pid file (once) when a move of a branch is committed.
    const hook = join(sb.repo, '.git', 'hooks', 'reference-transaction');
    writeFileSync(hook, `#!/bin/sh\n[ "$1" = committed ] || exit 0\ncat >/dev/null\nif [ -f '${pidFile()}' ]; then kill -9 "$(cat '${pidFile()}')"; rm -f '${pidFile()}'; fi\nexit 0\n`, { mode: 0o755 });
  });

  for (const [kind, flag, word] of [
    ['squash', '--squash', 'squashed'],
    ['rebase', '--rebase', 'rebased'],
    ['merge', '--no-ff', 'merged'],
    ['ff', '--ff-only', 'fast-forwarded'],
  ] as const) {
    it(`${kind}: killed after the move, the next run records it (once), and says so`, async () => {
      const { id, branch } = await endedAgent();
      const base = git(sb.repo, 'rev-parse', 'main');
      git(sb.repo, 'branch', 'release', base);
      // Ahead of the agent's base, but for a fast-forward: a squash, a rebase and a merge each make new commits.
      if (kind !== 'ff') git(sb.repo, 'update-ref', 'refs/heads/release', git(sb.repo, 'commit-tree', '-p', base, '-m', 'release moves', `${base}^{tree}`));
      const from = git(sb.repo, 'rev-parse', 'release');
      assert.equal(await killedAfterMove(['merge', id, flag, '--into', 'release']), 'SIGKILL');
      const landedAt = git(sb.repo, 'rev-parse', 'release');
      assert.notEqual(landedAt, from, 'the target moved before the kill');
      assert.equal((await sb.store.read(id)).landing ?? null, null, 'and nothing was recorded');

      const again = await cli(['merge', id, flag, '--into', 'release']);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, new RegExp(`${branch.replace('/', '\\/')} was already ${word} into release at ${landedAt.slice(0, 12)} by a landing stopped before it was recorded; recorded now`));
      const landing = (await sb.store.read(id)).landing!;
      assert.deepEqual({ kind: landing.kind, into: landing.into, commit: landing.commit, branchHead: landing.branchHead }, { kind, into: 'release', commit: landedAt, branchHead: git(sb.repo, 'rev-parse', branch) });
      assert.equal(git(sb.repo, 'rev-parse', 'release'), landedAt, 'nothing landed twice');
      // What was found is said where the landing is shown (bug 136): the record, show, and the row's words.
      assert.equal(landing.foundLater, true);
      assert.match((await cli(['show', id])).stdout, /work:\s+merged into release \(stopped before it was recorded; found later\)/);

      const third = await cli(['merge', id, flag, '--into', 'release']);
      assert.equal(third.code, 1, third.stdout);
      assert.equal((await sb.store.read(id)).landing!.at, landing.at, 'a recorded landing is not recorded again');
    });
  }

  it("the person's own squash of the same changes proves nothing: nothing is recorded", async () => {
    const { id, branch } = await endedAgent();
    rmSync(pidFile(), { force: true });
    git(sb.repo, 'commit', '-q', '--allow-empty', '-m', 'main moves');
    git(sb.repo, 'merge', '-q', '--squash', branch);
    git(sb.repo, 'commit', '-q', '-m', 'squashed by hand');
    const res = await cli(['merge', id, '--squash']);
    assert.equal(res.code, 1, res.stdout);
    assert.match(res.stderr, /changes nothing in main; nothing was changed/);
    assert.equal((await sb.store.read(id)).landing ?? null, null);
  });

  it('a killed squash the person then undid, landing the same changes by hand: the reflog entry proves nothing, nothing is recorded', async () => {
    const { id, branch } = await endedAgent();
    const base = git(sb.repo, 'rev-parse', 'main');
    git(sb.repo, 'branch', 'release', base);
    assert.equal(await killedAfterMove(['merge', id, '--squash', '--into', 'release']), 'SIGKILL');
    assert.notEqual(git(sb.repo, 'rev-parse', 'release'), base);
    // Undone, then the same changes committed by hand on release: a squash of the branch changes nothing there again.
    const tree = git(sb.repo, 'rev-parse', 'release^{tree}');
    git(sb.repo, 'update-ref', 'refs/heads/release', git(sb.repo, 'commit-tree', '-p', base, '-m', 'by hand', tree));
    const res = await cli(['merge', id, '--squash', '--into', 'release']);
    assert.equal(res.code, 1, res.stdout);
    assert.match(res.stderr, new RegExp(`${branch.replace('/', '\\/')} changes nothing in release; nothing was changed`));
    assert.equal((await sb.store.read(id)).landing ?? null, null);
  });
});
