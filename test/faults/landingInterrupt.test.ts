/**
 * Issue 12, whole system: every landing is safe to interrupt. `paddock merge
 * --rebase` (the strategy with the most steps: a temporary worktree, a
 * replay of 40 commits, then the move of the target) is SIGKILLed at points
 * spread over its run, onto a branch checked out (clean) in the main worktree
 * and onto one checked out nowhere. After each kill the target is at its old
 * commit or at a complete landing — never between — the main worktree is
 * clean, and the next landing removes the temporary worktree the killed one left.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinatorSandbox, git, useCoordinatorSandbox } from '../unit/core/coordinator/coordinatorFixture';
import { sleep } from '../unit/core/worker/fixtures';
import { CLI, cli } from './faultKit';

describe('faults: landing interrupted by SIGKILL', function () {
  this.timeout(300_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  function killedAfter(args: string[], ms: number): Promise<number | null> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [CLI, ...args], { cwd: sb.repo, env: sb.env, stdio: 'ignore' });
      const timer = setTimeout(() => child.kill('SIGKILL'), ms);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve(code);
      });
    });
  }

  /** No git left running on this sandbox (a killed CLI's git runs on in its own group to its end). */
  async function gitSettled(): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const busy = readdirSync('/proc').some((p) => {
        if (!/^\d+$/.test(p)) return false;
        try {
          const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8');
          const cwd = readlinkSync(`/proc/${p}/cwd`);
          return cmd.startsWith('git\0') && cwd.startsWith(sb.root);
        } catch {
          return false;
        }
      });
      if (!busy) return;
      await sleep(50);
    }
    throw new Error('git still running');
  }

  it('the target is at its old commit or a complete landing, never between; leftovers go on the next run', async () => {
    const script = 'for i in $(seq 1 40); do echo "$i" > "f$i.txt"; git add -A; git commit -qm "agent $i"; done';
    const started = cli(['start', '--json', '--', 'sh', '-c', script], sb.env, sb.repo);
    assert.equal(started.code, 0, started.stderr);
    const { id, branch } = JSON.parse(started.stdout) as { id: string; branch: string };
    assert.equal((await sb.waitEnded(id, 60_000)).lifecycle.state, 'completed');
    git(sb.repo, 'commit', '-q', '--allow-empty', '-m', 'main moves');
    const old = git(sb.repo, 'rev-parse', 'main');
    git(sb.repo, 'branch', 'release', old);
    const expectedTree = git(sb.repo, 'rev-parse', `${branch}^{tree}`); // main's extra commit is empty: the landed tree is the branch's
    const scratch = join(sb.home, 'landing');

    // One full run to time it (onto a throw-away branch).
    git(sb.repo, 'branch', 'timing', old);
    const t0 = Date.now();
    const timing = cli(['merge', id, '--rebase', '--into', 'timing'], sb.env, sb.repo);
    assert.equal(timing.code, 0, timing.stderr);
    const full = Date.now() - t0;

    let leftoversSeen = 0;
    let oldSeen = 0;
    let newSeen = 0;
    for (const target of ['main', 'release']) {
      for (let k = 0; k < 8; k++) {
        const delay = Math.round((full * (k + 0.5)) / 8);
        await killedAfter(['merge', id, '--rebase', '--into', target], delay);
        await gitSettled();
        const now = git(sb.repo, 'rev-parse', target);
        if (now === old) oldSeen++;
        else {
          // A complete landing: the old commit plus all 40 replayed commits, the branch's tree.
          assert.equal(git(sb.repo, 'rev-parse', `${now}~40`), old, `${target} after a kill at ${delay} ms is neither old nor a complete landing`);
          assert.equal(git(sb.repo, 'rev-parse', `${now}^{tree}`), expectedTree);
          newSeen++;
        }
        if (target === 'main') assert.equal(git(sb.repo, 'status', '--porcelain'), '', 'the main worktree is clean');
        const left = existsSync(scratch) ? readdirSync(scratch) : [];
        leftoversSeen += left.length;
        // The next landing (of any agent, here the same one) sweeps what a dead process left.
        const next = cli(['merge', id, '--rebase', '--into', target], sb.env, sb.repo);
        // After a kill that came once the target had moved, there is nothing left to land: also fine.
        assert.ok(next.code === 0 || /already has every commit|changes are already in/.test(next.stderr), next.stderr);
        assert.deepEqual(existsSync(scratch) ? readdirSync(scratch) : [], [], 'no temporary worktree left');
        assert.equal(git(sb.repo, 'worktree', 'list', '--porcelain').split('\n').filter((l) => l.startsWith('worktree ')).length, 2, 'only the main and the agent worktrees are registered');
        // Back to the old commit for the next kill point.
        if (target === 'main') git(sb.repo, 'reset', '-q', '--hard', old);
        else git(sb.repo, 'update-ref', 'refs/heads/release', old);
      }
    }
    assert.ok(oldSeen > 0, 'some kills came before the target moved');
    assert.ok(leftoversSeen > 0, 'some kills left a temporary worktree for the next run to remove');
    console.log(`      ${full} ms a landing; kills: ${oldSeen} before the move, ${newSeen} after; ${leftoversSeen} leftover worktree(s) removed by the next run`);
  });
});
