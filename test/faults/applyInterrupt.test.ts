/**
 * Bug 102, whole system: `paddock apply` SIGKILLed at points spread over its run. A killed CLI's
 * git runs on to its end in its own process group, so a kill during `git apply` leaves the agent's
 * files written, the submodule's commit unstaged and no landing recorded; the next `paddock apply`
 * refused those files as the person's ("would overwrite your local changes") without a word of the
 * killed apply. A resume that took such files as applied was withdrawn (it said applied of work that
 * was not all there): the next apply still refuses, and records nothing, but its sentence names the
 * stopped apply (its `apply-started` trace in the history) and what to do; once the person puts the
 * files back, a fresh apply lands the work whole.
 * A slow smudge filter (git apply runs it for each file it writes) stretches git apply's part.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinatorSandbox, git, useCoordinatorSandbox } from '../unit/core/coordinator/coordinatorFixture';
import { sleep } from '../unit/core/worker/fixtures';
import { CLI, cli } from './faultKit';

const OLD = '1'.repeat(40);
const NEW = '2'.repeat(40);

describe('faults: apply interrupted by SIGKILL', function () {
  this.timeout(300_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  function killedAfter(args: string[], ms: number): Promise<void> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [CLI, ...args], { cwd: sb.repo, env: sb.env, stdio: 'ignore' });
      const timer = setTimeout(() => child.kill('SIGKILL'), ms);
      child.on('close', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** No git left running on this sandbox (the killed CLI's git apply runs on to its end). */
  async function gitSettled(): Promise<void> {
    for (let i = 0; i < 400; i++) {
      const busy = readdirSync('/proc').some((p) => {
        if (!/^\d+$/.test(p)) return false;
        try {
          return readFileSync(`/proc/${p}/cmdline`, 'utf8').startsWith('git\0') && readlinkSync(`/proc/${p}/cwd`).startsWith(sb.root);
        } catch {
          return false;
        }
      });
      if (!busy) return;
      await sleep(50);
    }
    throw new Error('git still running');
  }

  it('after each kill the next apply lands the work, or refuses naming the stopped apply and records nothing; put back, it lands', async () => {
    writeFileSync(join(sb.repo, '.gitattributes'), '*.slow filter=slow\n');
    writeFileSync(join(sb.repo, '.gitmodules'), '[submodule "sub"]\n\tpath = sub\n\turl = https://example.com/sub.git\n');
    git(sb.repo, 'config', 'filter.slow.smudge', 'sleep 0.25; cat');
    git(sb.repo, 'config', 'filter.slow.clean', 'cat');
    git(sb.repo, 'add', '-A');
    git(sb.repo, 'update-index', '--add', '--cacheinfo', `160000,${OLD},sub`);
    git(sb.repo, 'commit', '-q', '-m', 'submodule');
    mkdirSync(join(sb.repo, 'sub'));
    const script = `for i in 1 2 3 4 5 6; do echo "$i" > "f$i.slow"; done; echo agent >> README.md; git add -A; git update-index --cacheinfo 160000,${NEW},sub; git commit -qm agent`;
    const started = cli(['start', '--json', '--', 'sh', '-c', script], sb.env, sb.repo);
    assert.equal(started.code, 0, started.stderr);
    const { id } = JSON.parse(started.stdout) as { id: string };
    assert.equal((await sb.waitEnded(id, 60_000)).lifecycle.state, 'completed');
    // Back to before the apply: the workspace clean and no landing recorded.
    const clean = async () => {
      git(sb.repo, 'reset', '-q', '--hard', 'HEAD');
      git(sb.repo, 'clean', '-fdq', '-e', 'sub');
      await sb.store.update(id, (j) => ({ ...j, landing: null }));
    };

    const t0 = Date.now();
    const timing = cli(['apply', id], sb.env, sb.repo);
    assert.equal(timing.code, 0, timing.stderr);
    const full = Date.now() - t0;
    const whole = git(sb.repo, 'status', '--porcelain');
    const staged = git(sb.repo, 'ls-files', '-s', 'sub');
    assert.match(staged, new RegExp(NEW));
    await clean();

    let stopped = 0;
    for (let k = 0; k < 8; k++) {
      const delay = Math.round((full * (k + 0.5)) / 8);
      await killedAfter(['apply', id], delay);
      await gitSettled();
      // A kill after the record (a narrow window at the end) leaves a landed apply: nothing to say of it.
      const recordedByKilled = (await sb.store.read(id)).landing !== null;
      let next = cli(['apply', id], sb.env, sb.repo);
      if (next.code !== 0 && !recordedByKilled) {
        assert.match(next.stderr, /an earlier apply of Agent \S+'s work was stopped before it finished, so they may be its writes: check them with git diff/, `after a kill at ${delay} ms`);
        assert.equal((await sb.store.read(id)).landing, null, 'nothing recorded as landed');
        stopped++;
        // The person puts the files back, as the sentence says; the apply then lands it.
        git(sb.repo, 'checkout', '-q', 'HEAD', '--', '.');
        git(sb.repo, 'clean', '-fdq', '-e', 'sub');
        next = cli(['apply', id], sb.env, sb.repo);
      }
      if (recordedByKilled) {
        await clean();
        continue;
      }
      assert.equal(next.code, 0, `after a kill at ${delay} ms: ${next.stderr}`);
      assert.equal(git(sb.repo, 'status', '--porcelain'), whole, `after a kill at ${delay} ms the workspace is as a whole apply leaves it`);
      assert.equal(git(sb.repo, 'ls-files', '-s', 'sub'), staged, 'the submodule staged');
      assert.equal((await sb.store.read(id)).landing?.kind, 'apply');
      await clean();
    }
    assert.ok(stopped > 0, 'some kills came after git apply had begun');
    assert.ok((await sb.store.readTimeline(id)).some((e) => e.type === 'apply-started'), 'the apply under way left its trace');
    console.log(`      ${full} ms an apply; ${stopped} of 8 kills left files written, refused naming the stopped apply`);
  });
});
