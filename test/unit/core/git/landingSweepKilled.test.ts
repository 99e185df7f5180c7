/**
 * The sweep of a dead landing's temporary worktree, itself killed (bug 137): it removed the folder,
 * then the registration. A SIGKILL while it removed the folder (a leftover of thousands of files
 * takes a while) left the registration with the folder's `.git` gone, and no later sweep could find
 * it again: `git worktree list` showed a *prunable* `land-…` worktree for good. The registration
 * now goes first, and a landing in a repository forgets its registrations of dead landings' gone
 * folders (what an older version's killed sweep left). Within the registration, its `gitdir` (all
 * that names the folder) goes last, and one a killed removal left emptied is forgotten too.
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

  /** The sweep in a process of its own, SIGKILLed once it has begun removing the registration's `pad` (some of its files are gone). */
  function sweepKilledInRegistration(scratch: string, pad: string): Promise<void> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, ['-e', `require(${JSON.stringify(SWEEP_MODULE)}).sweepLandingWorktrees(${JSON.stringify(scratch)})`], { stdio: 'ignore' });
      const all = readdirSync(pad).length;
      const look = setInterval(() => {
        if ((existsSync(pad) ? readdirSync(pad).length : 0) < all) {
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

  it('a sweep killed while it removes the registration leaves one the next sweep still finds (its gitdir goes last)', async () => {
    const { repo, scratch, leftover } = withLeftover(3);
    const admin = path.join(repo, '.git', 'worktrees', path.basename(leftover));
    // A registration that takes a while to remove (git keeps logs and more there).
    const pad = path.join(admin, 'pad');
    mkdirSync(pad);
    for (let i = 0; i < 4000; i++) writeFileSync(path.join(pad, `f${i}`), `${i}\n`);
    await sweepKilledInRegistration(scratch, pad);
    await sweepLandingWorktrees(scratch);
    assert.ok(!existsSync(leftover), 'the folder is gone');
    assert.ok(!existsSync(admin), 'and so is its registration, whole');
  });

  it('a dead landing\'s registration emptied of its gitdir and HEAD by a killed removal is forgotten by the next landing there; a person\'s is not', async () => {
    const { repo, scratch, leftover } = withLeftover(3);
    const worktrees = path.join(repo, '.git', 'worktrees');
    const admin = path.join(worktrees, path.basename(leftover));
    rmSync(leftover, { recursive: true, force: true });
    // What a removal killed once it had taken `gitdir` and `HEAD` left: nothing names its folder any more.
    for (const name of readdirSync(admin)) if (name !== 'index') rmSync(path.join(admin, name), { recursive: true, force: true });
    // A person's worktree named alike whose gitdir is lost still works (its HEAD is there): never touched.
    const theirs = sb.path('land-999998-cafe');
    git(repo, 'worktree', 'add', '-q', '--detach', theirs, 'main');
    rmSync(path.join(worktrees, 'land-999998-cafe', 'gitdir'));
    await sweepLandingWorktrees(scratch, undefined, repo);
    assert.ok(!existsSync(admin), 'the dead landing\'s is gone');
    assert.ok(existsSync(path.join(worktrees, 'land-999998-cafe', 'HEAD')), 'the person\'s stays');
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
