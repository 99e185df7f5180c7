/**
 * Bug 177's relink at a restore elsewhere, past the manifest's list of nested repositories (cut
 * at 200): a nested repository whose git dir lies apart, found after 200 others, kept its `.git`
 * naming the agent's old place and restore said nothing. The links are found in the restored tree.
 */
import * as assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { captureEvidence } from '../../../../src/core/git/evidence';
import { readManifest } from '../../../../src/core/git/evidenceManifest';
import { restoreWorktree } from '../../../../src/core/git/restore';
import { removeWorktree } from '../../../../src/core/git/worktree';
import { findNestedGitEntries } from '../../../../src/core/git/nestedGitEntries';
import { Sandbox, git, useGitSandbox, write } from './gitTestUtil';

const WHO = ['-c', 'user.name=A', '-c', 'user.email=a@b.c'];

describe('git: links inside the agent\'s worktree restored elsewhere, past 200 nested repositories (bug 177)', function () {
  this.timeout(300_000);
  let sb!: Sandbox;
  useGitSandbox((fresh) => (sb = fresh));

  it('the separate git dir of the 201st nested repository is linked in the copy', async () => {
    const repo = sb.repo({ 'README.md': 'hello\n' });
    const wt = sb.agentWorktree(repo);
    // 200 nested repositories ahead of it in the walk's order (copies of one: git init 200 times is slow here).
    const first = path.join(wt, 'vendor', 'a000');
    mkdirSync(first, { recursive: true });
    git(first, 'init', '-q');
    for (let i = 1; i < 200; i++) cpSync(first, path.join(wt, 'vendor', `a${String(i).padStart(3, '0')}`), { recursive: true });
    mkdirSync(path.join(wt, 'z', 'deep'), { recursive: true });
    git(wt, 'init', '-q', '-b', 'main', `--separate-git-dir=${path.join(wt, 'gd')}`, 'z/deep/sep');
    const sep = path.join(wt, 'z', 'deep', 'sep');
    write(sep, 'x.txt', 'x\n');
    git(sep, 'add', '.');
    git(sep, ...WHO, 'commit', '-q', '-m', 'x');
    write(sep, 'x.txt', 'edited\n');
    await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1' });
    await removeWorktree(repo, wt);
    const copy = sb.path('elsewhere');
    const result = await restoreWorktree({ repo, snapshotRef: 'refs/paddock/snapshots/job1', evidenceDir: sb.path('store', 'evidence'), target: copy, branch: 'paddock/job1' });
    const copySep = path.join(copy, 'z', 'deep', 'sep');
    assert.equal(readFileSync(path.join(copySep, '.git'), 'utf8'), `gitdir: ${realpathSync(path.join(copy, 'gd'))}\n`);
    assert.equal(git(copySep, 'status', '--porcelain'), 'M x.txt');
    assert.equal(readFileSync(path.join(copySep, 'x.txt'), 'utf8'), 'edited\n', 'byte for byte');
    assert.equal(git(copySep, 'show', 'HEAD:x.txt'), 'x');
    assert.deepEqual(result.problems, []);
  });

  it('finds every folder holding a .git, never inside a .git folder or through a symbolic link, and says when it stopped at its bound', async () => {
    const root = sb.path('tree');
    for (const d of ['a/.git/worktrees/w', 'b/c', 'b/c/d/.git', 'link-target/e/.git']) mkdirSync(path.join(root, d), { recursive: true });
    writeFileSync(path.join(root, 'b/c/.git'), 'gitdir: /x\n');
    writeFileSync(path.join(root, 'a/.git/worktrees/w/.git'), 'not walked\n');
    cpSync(path.join(root, 'link-target'), path.join(root, 'copy'), { recursive: true });
    symlinkSync(path.join(root, 'link-target'), path.join(root, 'through-link'));
    const all = await findNestedGitEntries(root);
    assert.deepEqual(all, { cut: false, nested: [{ path: 'a', gitFile: false }, { path: 'b/c', gitFile: true }, { path: 'copy/e', gitFile: false }, { path: 'link-target/e', gitFile: false }, { path: 'b/c/d', gitFile: false }] });
    assert.deepEqual(await findNestedGitEntries(root, { limit: 2 }), { cut: true, nested: all.nested.slice(0, 2) });
    const stop = new AbortController();
    stop.abort(new Error('cancelled'));
    await assert.rejects(findNestedGitEntries(root, { signal: stop.signal }), /cancelled/);
  });

  /** A repository nested in the agent's worktree with `count` linked worktrees outside it (made as git makes them: git worktree add 201 times is slow here), detached at its commit. */
  function innerWithOutside(wt: string, count = 201): { folders: string[]; head: string } {
    git(wt, 'init', '-q', '-b', 'main', 'inner');
    const inner = path.join(wt, 'inner');
    write(inner, 'x.txt', 'x\n');
    git(inner, 'add', '.');
    git(inner, ...WHO, 'commit', '-q', '-m', 'x');
    const head = git(inner, 'rev-parse', 'HEAD');
    const folders = Array.from({ length: count }, (_, k) => sb.path('outside', `w${String(k).padStart(3, '0')}`));
    folders.forEach((folder, k) => {
      const admin = path.join(inner, '.git', 'worktrees', `w${String(k).padStart(3, '0')}`);
      mkdirSync(admin, { recursive: true });
      mkdirSync(folder, { recursive: true });
      writeFileSync(path.join(admin, 'gitdir'), `${folder}/.git\n`);
      writeFileSync(path.join(admin, 'commondir'), '../..\n');
      writeFileSync(path.join(admin, 'HEAD'), `${head}\n`);
      writeFileSync(path.join(folder, '.git'), `gitdir: ${admin}\n`);
    });
    return { folders, head };
  }

  it("every one of 201 linked worktrees outside the agent's is recorded and linked again at a restore elsewhere", async () => {
    const repo = sb.repo({ 'README.md': 'hello\n' });
    const wt = sb.agentWorktree(repo);
    const { folders, head } = innerWithOutside(wt);
    const last = folders[200]!;
    git(last, 'checkout', '-q', '-f', head);
    writeFileSync(path.join(last, 'x.txt'), 'edited outside\n');
    await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1' });
    await removeWorktree(repo, wt);
    const copy = sb.path('elsewhere');
    const result = await restoreWorktree({ repo, snapshotRef: 'refs/paddock/snapshots/job1', evidenceDir: sb.path('store', 'evidence'), target: copy, branch: 'paddock/job1' });
    assert.deepEqual(result.problems, []);
    for (const folder of [folders[0]!, last]) {
      assert.equal(readFileSync(path.join(folder, '.git'), 'utf8'), `gitdir: ${realpathSync(path.join(copy, 'inner', '.git', 'worktrees', path.basename(folder)))}\n`);
    }
    assert.equal(git(last, 'status', '--porcelain'), 'M x.txt');
    assert.equal(readFileSync(path.join(last, 'x.txt'), 'utf8'), 'edited outside\n', 'byte for byte');
  });
  it("the summary's line counting the rest stays last when a worktree of another repository comes first", async () => {
    const repo = sb.repo({ 'README.md': 'hello\n' });
    const other = sb.repo({ 'other.txt': 'another project\n' }, 'other');
    const wt = sb.agentWorktree(repo);
    innerWithOutside(wt);
    git(other, 'worktree', 'add', '-q', '--detach', path.join(wt, 'sub'));
    await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1' });
    const words = (await readManifest(sb.path('store', 'evidence', 'inventory.json'))).summary.foreignWorktrees ?? [];
    assert.equal(words.length, 200);
    assert.match(words[199]!, /^3 more worktrees of other repositories/, 'the count of the rest (1 + 201 - 199) is the last line');
  });
  // Bug 201: today's capture of exactly 200 records them all, and says so: no rest to warn of.
  for (const older of [false, true]) {
    it(older
      ? 'a restore from an older record listing exactly 200 outside worktrees (where older captures cut the list) says the rest may not be linked'
      : 'a restore from a capture of exactly 200 outside worktrees, which records them all, says no rest may be missing', async () => {
      const repo = sb.repo({ 'README.md': 'hello\n' });
      const wt = sb.agentWorktree(repo);
      innerWithOutside(wt, 200);
      await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1' });
      const inventory = sb.path('store', 'evidence', 'inventory.json');
      if (older) {
        const manifest = JSON.parse(readFileSync(inventory, 'utf8')) as Record<string, unknown>;
        assert.equal(manifest.outsideAll, true);
        delete manifest.outsideAll; // as a capture before every one was recorded wrote it
        writeFileSync(inventory, JSON.stringify(manifest));
      }
      await removeWorktree(repo, wt);
      const result = await restoreWorktree({ repo, snapshotRef: 'refs/paddock/snapshots/job1', evidenceDir: sb.path('store', 'evidence'), target: sb.path('elsewhere'), branch: 'paddock/job1' });
      if (!older) return assert.deepEqual(result.problems, []);
      assert.equal(result.problems.length, 1, JSON.stringify(result.problems));
      assert.match(result.problems[0]!, /lists exactly 200 linked worktrees outside the agent's.*if there were more, they were not linked/);
    });
  }
});
