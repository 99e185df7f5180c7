import * as assert from 'node:assert/strict';
import { mkdirSync, renameSync, symlinkSync } from 'node:fs';
import * as path from 'node:path';
import { changedFiles, worktreeFingerprint } from '../../../../src/core/git/status';
import { mainWorktreeFromFiles, resolveCommit, resolveRepoRoot } from '../../../../src/core/git/repo';
import { listWorktrees } from '../../../../src/core/git/worktreeList';
import { runGit } from '../../../../src/core/git/runGit';
import { Sandbox, useGitSandbox, binary, git, write } from './gitTestUtil';
import { chmodSync, rmSync } from 'node:fs';

describe('git/repo, runGit and status', function () {
  this.timeout(60_000);
  let sb!: Sandbox;
  let repo: string;
  let base: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'README.md': 'hello\n', 'src/a.txt': 'a\n', 'gone.txt': 'g\n', 'run.sh': 'echo\n', 'move-me.txt': 'content to move\n'.repeat(10) });
    base = git(repo, 'rev-parse', 'HEAD');
  });

  it('runGit ignores a leaked GIT_DIR, streams big output and reports failures in one sentence', async () => {
    process.env.GIT_DIR = '/nonexistent/.git';
    assert.equal((await runGit(['rev-parse', 'HEAD'], { cwd: repo })).stdout.trim(), base);
    delete process.env.GIT_DIR;

    write(repo, 'big.bin', binary(3 * 1024 * 1024, 1));
    const blob = git(repo, 'hash-object', '-w', 'big.bin');
    const out = await runGit(['cat-file', 'blob', blob], { cwd: repo });
    assert.ok(out.stdout.length > 2 * 1024 * 1024, 'more than the default 1 MB exec buffer');

    await assert.rejects(runGit(['rev-parse', 'no-such-ref'], { cwd: repo }), /git rev-parse failed in .*: /);
    await assert.rejects(runGit(['status'], { cwd: sb.path('no-such-folder') }), /Folder .*no-such-folder does not exist\./);
    const soft = await runGit(['rev-parse', '--verify', '--quiet', 'no-such-ref'], { cwd: repo, allowFailure: true });
    assert.notEqual(soft.code, 0);
    assert.equal((await runGit(['hash-object', '--stdin'], { cwd: repo, input: 'hello\n' })).stdout.trim(), git(repo, 'rev-parse', 'HEAD:README.md'));
  });

  it('resolveRepoRoot finds the main top-level from a subfolder, a worktree and a worktree subfolder', async () => {
    mkdirSync(path.join(repo, 'src', 'deep'), { recursive: true });
    const wt = sb.path('wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'x', wt, 'main');
    assert.equal(await resolveRepoRoot(repo), repo);
    assert.equal(await resolveRepoRoot(path.join(repo, 'src', 'deep')), repo);
    assert.equal(await resolveRepoRoot(wt), repo);
    assert.equal(await resolveRepoRoot(path.join(wt, 'src')), repo);
  });

  it('reads a plain main worktree from its files (by its real path), and leaves every other layout to git', async () => {
    const gitsMain = (dir: string) => /^worktree (.+)$/m.exec(git(dir, 'worktree', 'list', '--porcelain'))![1];
    const linkToRepo = sb.path('link-to-repo');
    symlinkSync(repo, linkToRepo);
    assert.equal(await mainWorktreeFromFiles(repo), gitsMain(repo));
    assert.equal(await mainWorktreeFromFiles(linkToRepo), gitsMain(repo), 'a symlinked path is named as git names it');
    assert.equal(await resolveRepoRoot(linkToRepo), gitsMain(repo));
    // Each unusual layout: no answer from the files (git's own answer is what the tests above check).
    const wt = sb.path('wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'x', wt, 'main');
    assert.equal(await mainWorktreeFromFiles(wt), undefined, 'a linked worktree (.git is a file)');
    assert.equal(await mainWorktreeFromFiles(path.join(repo, 'src')), undefined, 'a subfolder');
    const unusual: Array<[string, (dir: string) => void]> = [
      ['its config names another working tree', (dir) => git(dir, 'config', 'core.worktree', path.join(dir, 'src'))],
      ['per-worktree config is on', (dir) => git(dir, 'config', 'extensions.worktreeConfig', 'true')],
      ['its config includes another file', (dir) => git(dir, 'config', 'include.path', path.join(dir, 'extra.cfg'))],
      ['it is marked bare', (dir) => git(dir, 'config', 'core.bare', 'true')],
      ['its .git is a symlink', (dir) => {
        renameSync(path.join(dir, '.git'), `${dir}-gitdir`);
        symlinkSync(`${dir}-gitdir`, path.join(dir, '.git'));
      }],
    ];
    for (const [i, [what, make]] of unusual.entries()) {
      const dir = sb.repo({ 'a.txt': 'a\n', 'src/b.txt': 'b\n' }, `unusual${i}`);
      make(dir);
      assert.equal(await mainWorktreeFromFiles(dir), undefined, what);
    }
  });

  it('resolveCommit reads HEAD from the files (branch, packed ref, detached) and still refuses an unborn branch', async () => {
    assert.equal(await resolveCommit(repo, 'HEAD'), base);
    git(repo, 'pack-refs', '--all');
    assert.equal(await resolveCommit(repo, 'HEAD'), base, 'a packed branch');
    write(repo, 'next.txt', 'n\n');
    git(repo, 'add', 'next.txt');
    git(repo, 'commit', '-q', '-m', 'next');
    const next = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'checkout', '-q', '--detach', base);
    assert.equal(await resolveCommit(repo, 'HEAD'), base, 'detached');
    git(repo, 'checkout', '-q', 'main');
    assert.equal(await resolveCommit(repo, 'HEAD'), next, 'the loose ref written after packing');
    git(repo, 'checkout', '-q', '--orphan', 'fresh');
    await assert.rejects(resolveCommit(repo, 'HEAD'), /Base 'HEAD' is not a commit in /);
  });

  it('resolveRepoRoot and listWorktrees name a checkout whose .git is a symlink by its folder (git itself lists the git dir)', async () => {
    const moved = sb.path('moved.git');
    renameSync(path.join(repo, '.git'), moved);
    symlinkSync(moved, path.join(repo, '.git'));
    mkdirSync(path.join(repo, 'src', 'deep'), { recursive: true });
    assert.match(git(repo, 'worktree', 'list', '--porcelain'), new RegExp(`^worktree ${moved}$`, 'm'), "git's own list names the git dir");
    assert.equal(await resolveRepoRoot(repo), repo);
    assert.equal(await resolveRepoRoot(path.join(repo, 'src', 'deep')), repo);
    const wt = sb.path('wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'x', wt, 'main');
    assert.deepEqual((await listWorktrees(repo)).map((e) => [e.path, e.branch]), [[repo, 'main'], [wt, 'x']]);
    // From a linked worktree nothing leads back to the checkout that links the git dir: one sentence, not the git dir as a repository.
    await assert.rejects(resolveRepoRoot(wt), (e: Error) => e.message === `The repository of ${wt} keeps its git folder apart, at ${moved}, and git cannot name its checkout from here; open the checkout's own folder.`);
    assert.deepEqual((await listWorktrees(wt)).map((e) => e.path), [moved, wt], 'listed as git lists it when the checkout cannot be found');
  });

  it('resolveRepoRoot and listWorktrees name a checkout whose git dir lives apart (--separate-git-dir) by its folder', async () => {
    const checkout = sb.path('checkout');
    const apart = sb.path('apart.git');
    git(sb.path('.'), 'init', '-q', '-b', 'main', `--separate-git-dir=${apart}`, checkout);
    git(checkout, '-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-q', '--allow-empty', '-m', 'init');
    const wt = sb.path('wt');
    git(checkout, 'worktree', 'add', '-q', '-b', 'x', wt, 'main');
    assert.match(git(checkout, 'worktree', 'list', '--porcelain'), new RegExp(`^worktree ${apart}$`, 'm'), "git's own list names the git dir");
    assert.equal(await resolveRepoRoot(checkout), checkout);
    assert.deepEqual((await listWorktrees(checkout)).map((e) => [e.path, e.branch]), [[checkout, 'main'], [wt, 'x']]);
    await assert.rejects(resolveRepoRoot(wt), /keeps its git folder apart, at .*apart\.git, and git cannot name its checkout from here/);
  });

  it('resolveRepoRoot fails clearly outside a repository', async () => {
    const plain = sb.path('plain');
    mkdirSync(plain);
    await assert.rejects(resolveRepoRoot(plain), /is not inside a git repository/);
    await assert.rejects(resolveRepoRoot(sb.path('missing')), /does not exist/);
  });

  it('resolveCommit resolves shas, branches and tags, and rejects the rest', async () => {
    git(repo, 'tag', '-a', '-m', 't', 'v1');
    assert.equal(await resolveCommit(repo, 'main'), base);
    assert.equal(await resolveCommit(repo, base.slice(0, 8)), base);
    assert.equal(await resolveCommit(repo, 'v1'), base);
    await assert.rejects(resolveCommit(repo, 'nope'), /Base 'nope' is not a commit in /);
    await assert.rejects(resolveCommit(repo, 'HEAD^{tree}'), /is not a commit/);
    await assert.rejects(resolveCommit(repo, '--all'), /not a valid git revision/);
  });

  it('changedFiles lists committed, staged, unstaged, deleted, renamed and untracked changes', async () => {
    const wt = sb.path('wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'work', wt, base);
    write(wt, 'committed.txt', 'c\n');
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '-m', 'agent');
    write(wt, 'README.md', 'changed\n');
    rmSync(path.join(wt, 'gone.txt'));
    write(wt, 'staged.txt', 's\n');
    git(wt, 'add', 'staged.txt');
    git(wt, 'mv', 'move-me.txt', 'moved.txt');
    chmodSync(path.join(wt, 'run.sh'), 0o755);
    write(wt, 'new/untracked.txt', 'u\n');

    const files = (await changedFiles(repo, wt, base)).sort((a, b) => (a.path < b.path ? -1 : 1));
    assert.deepEqual(files, [
      { status: 'M', path: 'README.md' },
      { status: 'A', path: 'committed.txt' },
      { status: 'D', path: 'gone.txt' },
      { status: 'R', path: 'moved.txt', oldPath: 'move-me.txt' },
      { status: '?', path: 'new/untracked.txt' },
      { status: 'M', path: 'run.sh' },
      { status: 'A', path: 'staged.txt' },
    ]);
  });

  it('worktreeFingerprint changes with the worktree and stays put otherwise', async () => {
    const f0 = await worktreeFingerprint(repo, repo);
    assert.equal(await worktreeFingerprint(repo, repo), f0);
    write(repo, 'README.md', 'edited\n');
    const f1 = await worktreeFingerprint(repo, repo);
    assert.notEqual(f1, f0);
    write(repo, 'README.md', 'edited again, still modified\n');
    const f2 = await worktreeFingerprint(repo, repo);
    assert.notEqual(f2, f1, 'a second edit of a modified file counts');
    git(repo, 'commit', '-q', '-am', 'commit it');
    assert.notEqual(await worktreeFingerprint(repo, repo), f2);
    const missing = await worktreeFingerprint(repo, sb.path('nowhere'));
    assert.equal(await worktreeFingerprint(repo, sb.path('nowhere')), missing);
    assert.notEqual(missing, f0);
  });
});
