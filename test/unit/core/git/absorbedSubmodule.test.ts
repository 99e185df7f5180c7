/**
 * Bug 158: a submodule checked out in the agent's worktree keeps its git dir in the worktree's
 * private git dir (`modules/<name>`), its `.git` a file naming it. Restore gave it back as the
 * checkout's own `.git` folder, and a submodule's own submodule got a second copy of its git dir
 * beside the one inside its parent's: the files and commits were there, but `git submodule deinit`
 * of the parent then failed ("could not migrate git directory … Directory not empty"). Now each
 * git dir goes back where git had it, once.
 */
import * as assert from 'node:assert/strict';
import { lstatSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { captureEvidence, privateGitDir } from '../../../../src/core/git/evidence';
import { restoreWorktree, type RestoreResult } from '../../../../src/core/git/restore';
import { removeWorktree } from '../../../../src/core/git/worktree';
import { Sandbox, git, useGitSandbox, write } from './gitTestUtil';
import { assertSameState, treeState } from './treeState';

const FILE_PROTOCOL = ['-c', 'protocol.file.allow=always'];
const WHO = ['-c', 'user.name=A', '-c', 'user.email=a@b.c'];

describe('git: a submodule whose git dir lives in the worktree\'s git dir comes back there', function () {
  this.timeout(120_000);
  let sb!: Sandbox;
  let repo: string;
  let base: string;
  let wt: string;
  useGitSandbox((fresh) => {
    sb = fresh;
  });

  /** vendor/lib, and its own deps/inner; named as their paths unless `names` (`submodule add --name`). */
  function setup(names?: { lib: string; inner: string }): void {
    const named = (name: string | undefined) => (name ? ['--name', name] : []);
    const inner = sb.repo({ 'in.c': 'inner\n' }, 'inner');
    const lib = sb.repo({ 'lib.c': 'lib\n' }, 'lib');
    git(lib, ...FILE_PROTOCOL, 'submodule', 'add', '-q', ...named(names?.inner), inner, 'deps/inner');
    git(lib, 'commit', '-q', '-m', 'inner');
    repo = sb.repo({ 'README.md': 'hello\n' });
    git(repo, ...FILE_PROTOCOL, 'submodule', 'add', '-q', ...named(names?.lib), lib, 'vendor/lib');
    git(repo, 'commit', '-q', '-m', 'submodule');
    base = git(repo, 'rev-parse', 'main');
    wt = sb.agentWorktree(repo);
    git(wt, ...FILE_PROTOCOL, 'submodule', 'update', '--init', '--recursive', '-q');
  }

  /** What git says of the superproject and of each submodule. */
  function gitSays(dir: string): string[] {
    const sub = path.join(dir, 'vendor/lib');
    const inner = path.join(sub, 'deps/inner');
    return [
      git(dir, 'status', '--porcelain=v2', '--untracked-files=all', '--ignored'),
      git(dir, 'submodule', 'status', '--recursive'),
      ...[sub, inner].flatMap((d) => [git(d, 'status', '--porcelain=v2', '--branch', '--untracked-files=all'), git(d, 'log', '--format=%H %s', '-3'), git(d, 'stash', 'list', '--format=%H %s')]),
    ];
  }

  async function roundTrip(target: string): Promise<RestoreResult> {
    const before = { files: treeState(wt), says: gitSays(wt), modules: treeState(path.join(privateGitDir(wt), 'modules'), (rel) => rel.endsWith('/index') || rel.endsWith('/config')) };
    await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: base, branch: 'paddock/job1' });
    await removeWorktree(repo, wt);
    const result = await restoreWorktree({ repo, snapshotRef: 'refs/paddock/snapshots/job1', evidenceDir: sb.path('store', 'evidence'), target, branch: 'paddock/job1' });
    assert.deepEqual(result.problems, []);
    for (const checkout of ['vendor/lib', 'vendor/lib/deps/inner']) {
      assert.ok(lstatSync(path.join(target, checkout, '.git')).isFile(), `${checkout}/.git is a file again`);
    }
    // Same place in the git dir, same objects, refs, reflogs and stash (the index and config hold stat data and paths).
    assertSameState(treeState(path.join(privateGitDir(target), 'modules'), (rel) => rel.endsWith('/index') || rel.endsWith('/config')), before.modules);
    assert.deepEqual(gitSays(target), before.says);
    if (target === wt) assertSameState(treeState(target), before.files);
    return result;
  }

  function agentWork(): void {
    const sub = path.join(wt, 'vendor/lib');
    const inner = path.join(sub, 'deps/inner');
    git(sub, 'checkout', '-q', '--detach');
    write(sub, 'agent.c', 'committed on a detached HEAD, on no remote\n');
    git(sub, 'add', 'agent.c');
    git(sub, ...WHO, 'commit', '-q', '-m', 'agent commit in the submodule');
    write(sub, 'lib.c', 'stashed edit\n');
    git(sub, ...WHO, 'stash', '-q');
    write(sub, 'lib.c', 'uncommitted edit\n');
    write(sub, 'untracked.c', 'untracked\n');
    write(inner, 'in.c', 'edited in the nested submodule\n');
    git(inner, ...WHO, 'commit', '-q', '-am', 'agent commit in the nested submodule');
  }

  it('restored at the agent\'s path: every file, the .git files byte for byte, and git says what it said', async () => {
    setup();
    agentWork();
    const dotGit = readFileSync(path.join(wt, 'vendor/lib/.git'), 'utf8');
    await roundTrip(wt);
    assert.equal(readFileSync(path.join(wt, 'vendor/lib/.git'), 'utf8'), dotGit);
    // git treats it as the submodule it was: deinit works (before: git could not move the nested git dir over its second copy).
    git(wt, 'submodule', 'deinit', '-q', '-f', 'vendor/lib');
  });

  it('restored elsewhere (--to): the git dirs go into the new worktree\'s own', async () => {
    setup();
    agentWork();
    const restored = sb.path('restored');
    await roundTrip(restored);
    assert.match(readFileSync(path.join(restored, 'vendor/lib/.git'), 'utf8'), /worktrees\/restored\/modules\/vendor\/lib\n$/);
    assert.equal(git(path.join(restored, 'vendor/lib'), 'rev-parse', '--show-toplevel'), path.join(restored, 'vendor/lib'));
  });

  // Bug 158's review: git keeps a submodule's git dir under modules/<name>, its path only when added without --name.
  it('a nested submodule whose name is not its path comes back in its parent\'s git dir, once', async () => {
    setup({ lib: 'libname', inner: 'innername' });
    agentWork();
    assert.ok(lstatSync(path.join(privateGitDir(wt), 'modules/libname/modules/innername/HEAD')).isFile());
    await roundTrip(wt);
    git(wt, 'submodule', 'deinit', '-q', '-f', 'vendor/lib');
  });

  // Bug 158's second review: the name is read from a .gitmodules the agent can write; git refuses a `..` in it.
  it('a name in .gitmodules leading out of the parent\'s git dir touches no other repository', async () => {
    setup();
    const victim = sb.repo({ 'v.txt': 'victim\n' }, 'victim');
    const sub = path.join(wt, 'vendor/lib');
    const escape = path.relative(path.join(sub, '.git/modules'), path.join(victim, '.git'));
    git(sub, 'config', '-f', '.gitmodules', '--rename-section', 'submodule.deps/inner', `submodule.${escape}`);
    const config = readFileSync(path.join(victim, '.git/config'), 'utf8');
    await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: base, branch: 'paddock/job1' });
    await removeWorktree(repo, wt);
    const result = await restoreWorktree({ repo, snapshotRef: 'refs/paddock/snapshots/job1', evidenceDir: sb.path('store', 'evidence'), target: wt, branch: 'paddock/job1' });
    assert.equal(readFileSync(path.join(victim, '.git/config'), 'utf8'), config, 'the other repository\'s config as it was');
    assert.equal(git(victim, 'status', '--porcelain'), '');
    // git cannot follow the nested checkout when its parent's git dir moves under a name it refuses: said, not left unsaid.
    assert.equal(result.problems.length, 1, result.problems.join(' | '));
    assert.match(result.problems[0]!, /^vendor\/lib\/deps\/inner: its \.git names .*, which is not there/);
  });
});
