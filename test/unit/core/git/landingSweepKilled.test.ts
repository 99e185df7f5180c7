/**
 * The sweep of a dead landing's temporary worktree, itself killed (bug 137): it removed the folder,
 * then the registration. A SIGKILL while it removed the folder (a leftover of thousands of files
 * takes a while) left the registration with the folder's `.git` gone, and no later sweep could find
 * it again: `git worktree list` showed a *prunable* `land-…` worktree for good. The registration
 * now goes first, and a landing in a repository forgets its registrations of dead landings' gone
 * folders (what an older version's killed sweep left).
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { landBranch, sweepLandingWorktrees } from '../../../../src/core/git';
import { git, Sandbox, useGitSandbox, write } from './gitTestUtil';

const SWEEP_MODULE = path.resolve(__dirname, '../../../../src/core/git/landingWorktree.js');

describe('git/landing sweep: killed while it removes a leftover', function () {
  this.timeout(120_000);
  let sb!: Sandbox;
  useGitSandbox((fresh) => (sb = fresh));

  /** A repository whose `main` holds `files` files, and a leftover landing worktree of it (no such pid) in `scratch`. */
  function withLeftover(files: number): { repo: string; scratch: string; leftover: string } {
    const repo = sb.path('repo');
    git(sb.dir, 'init', '-q', '-b', 'main', repo);
    git(repo, 'config', 'user.name', 'Test');
    git(repo, 'config', 'user.email', 'test@example.invalid');
    mkdirSync(path.join(repo, 'd'));
    for (let i = 0; i < files; i++) writeFileSync(path.join(repo, 'd', `f${i}`), `${i}\n`);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'init');
    const scratch = sb.path('scratch');
    mkdirSync(scratch, { recursive: true });
    const leftover = path.join(scratch, 'land-999999-deadbeef');
    git(repo, 'worktree', 'add', '-q', '--detach', leftover, 'main');
    return { repo, scratch, leftover };
  }

  const landRegistrations = (repo: string) => git(repo, 'worktree', 'list', '--porcelain').split('\n').filter((l) => l.startsWith('worktree ') && l.includes('land-'));

  /** The sweep in a process of its own, SIGKILLed once it has begun removing the folder (some of its files are gone). */
  function sweepKilledMidway(scratch: string, leftover: string): Promise<void> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, ['-e', `require(${JSON.stringify(SWEEP_MODULE)}).sweepLandingWorktrees(${JSON.stringify(scratch)})`], { stdio: 'ignore' });
      const all = readdirSync(path.join(leftover, 'd')).length;
      const look = setInterval(() => {
        const left = existsSync(path.join(leftover, 'd')) ? readdirSync(path.join(leftover, 'd')).length : 0;
        if (left < all) {
          clearInterval(look);
          child.kill('SIGKILL');
        }
      }, 1);
      child.on('close', () => {
        clearInterval(look);
        resolve();
      });
    });
  }

  it('a sweep killed while it removes the folder leaves nothing the next sweep cannot remove', async () => {
    const { repo, scratch, leftover } = withLeftover(4000);
    await sweepKilledMidway(scratch, leftover);
    await sweepLandingWorktrees(scratch);
    assert.ok(!existsSync(leftover), 'the folder is gone');
    assert.deepEqual(landRegistrations(repo), [], 'and so is its registration');
  });

  it('a registration whose folder an earlier sweep removed is forgotten by the next landing in that repository', async () => {
    const { repo, scratch, leftover } = withLeftover(3);
    // What the old order left when killed between the folder's removal and the registration's.
    rmSync(leftover, { recursive: true, force: true });
    const live = path.join(scratch, `land-${process.pid}-cafe`);
    git(repo, 'worktree', 'add', '-q', '--detach', live, 'main');
    rmSync(live, { recursive: true, force: true });
    write(repo, 'feature.txt', 'feature\n');
    git(repo, 'checkout', '-q', '-b', 'paddock/agent');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'feature');
    const tip = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'checkout', '-q', 'main');
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'main moves');
    const res = await landBranch({ repo, target: 'main', source: tip, sourceName: 'paddock/agent', strategy: 'rebase', message: 'Land\n', scratchRoot: scratch });
    assert.equal(res.kind, 'rebase');
    // A live process's registration is its own to remove, whatever its folder.
    assert.deepEqual(landRegistrations(repo), [`worktree ${live}`]);
  });
});
