/**
 * Cleanup loses nothing: for each way an agent can leave work where a plain
 * `git add -A` does not look (nested repositories, submodules, index flags,
 * ignored files, empty folders, reflog-only commits, odd names and modes), the
 * worktree is captured, removed, restored from the evidence alone, and the
 * restored tree must equal the last state byte for byte (contents, modes,
 * symlinks, empty folders). Each case reproduced a loss reported in issue 11.
 */
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { CONSENT_NEEDED, captureEvidence, privateGitDir, type CaptureOptions } from '../../../../src/core/git/evidence';
import { extractArchive } from '../../../../src/core/git/archive';
import { readManifest, type LostEntry } from '../../../../src/core/git/evidenceManifest';
import { walkWorktree } from '../../../../src/core/git/inventory';
import { decodeName } from '../../../../src/core/git/pathBytes';
import { printable } from '../../../../src/core/common/printable';
import { restoreWorktree } from '../../../../src/core/git/restore';
import { removeWorktree } from '../../../../src/core/git/worktree';
import { PaddockError } from '../../../../src/core/common/errors';
import { Sandbox, binary, git, useGitSandbox, write } from './gitTestUtil';
import { assertSameState, treeState, type State } from './treeState';

/** Who captures in the permission cases when the tests run as root (root reads anything). */
const NOBODY = 65534;

describe('git: restore gives back the worktree captured at cleanup', function () {
  this.timeout(120_000);
  let sb!: Sandbox;
  let repo: string;
  let base: string;
  let wt: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'README.md': 'hello\n', 'c.txt': 'c before\n', 'd.txt': 'd before\n', '.gitignore': '.env\nbuild/\nnode_modules/\n*.pyc\n' });
    base = git(repo, 'rev-parse', 'main');
    wt = sb.agentWorktree(repo);
  });

  function options(extra: Partial<CaptureOptions> = {}): CaptureOptions {
    return { repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: base, branch: 'paddock/job1', ...extra };
  }

  /** Capture, remove the worktree (as cleanup does), restore elsewhere; returns the restored folder. */
  async function roundTrip(extra: Partial<CaptureOptions> = {}, skip?: (rel: string) => boolean): Promise<{ restored: string; before: State }> {
    const before = treeState(wt, skip);
    await captureEvidence(options(extra));
    await removeWorktree(repo, wt);
    assert.equal(existsSync(wt), false);
    const restored = sb.path('restored');
    await restoreWorktree({ repo, snapshotRef: 'refs/paddock/snapshots/job1', evidenceDir: sb.path('store', 'evidence'), target: restored, branch: 'paddock/job1' });
    return { restored, before };
  }

  it('keeps a nested repository the agent made, with its commits and dirty state', async () => {
    const inner = path.join(wt, 'inner');
    mkdirSync(inner);
    git(inner, 'init', '-q', '-b', 'main');
    write(inner, 'x.txt', 'committed\n');
    git(inner, 'add', 'x.txt');
    git(inner, '-c', 'user.name=A', '-c', 'user.email=a@b.c', 'commit', '-q', '-m', 'inner commit');
    const innerHead = git(inner, 'rev-parse', 'HEAD');
    write(inner, 'x.txt', 'edited after commit\n');
    write(inner, 'y.txt', 'new file\n');
    const { restored, before } = await roundTrip();
    assertSameState(treeState(restored), before);
    assert.equal(git(path.join(restored, 'inner'), 'rev-parse', 'HEAD'), innerHead);
    assert.match(git(path.join(restored, 'inner'), 'status', '--porcelain'), /M x\.txt[\s\S]*\?\? y\.txt/);
  });

  it("ignores git variables leaked by the caller that change what git reads or what a pathspec means", async () => {
    const inner = path.join(wt, 'inner');
    mkdirSync(inner);
    git(inner, 'init', '-q', '-b', 'main');
    write(inner, 'x.txt', 'nested work\n');
    write(wt, 'c.txt', 'c edited\n');
    // GIT_LITERAL_PATHSPECS turns the capture's `:(exclude)inner` into a path that does not exist.
    process.env.GIT_LITERAL_PATHSPECS = '1';
    process.env.GIT_ICASE_PATHSPECS = '1';
    process.env.GIT_INDEX_VERSION = '2';
    process.env.GIT_REPLACE_REF_BASE = 'refs/elsewhere/';
    const { restored, before } = await roundTrip();
    assertSameState(treeState(restored), before);
  });

  it('keeps the edits to tracked files in a folder where the agent ran git init (or left a junk .git file)', async () => {
    write(wt, 'app/main.txt', 'v1\n');
    write(wt, 'app/gone.txt', 'tracked, then deleted\n');
    write(wt, 'fx/f.txt', 'f v1\n');
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '-m', 'tracked folders');
    git(path.join(wt, 'app'), 'init', '-q');
    write(wt, 'app/main.txt', 'v1\nv2-edit\n');
    rmSync(path.join(wt, 'app', 'gone.txt'));
    write(wt, 'app/added.txt', 'new in the nested repository\n');
    write(wt, 'fx/.git', 'not a gitdir pointer\n');
    write(wt, 'fx/f.txt', 'f v2\n');
    const { restored, before } = await roundTrip();
    assertSameState(treeState(restored), before);
    // The edits are in the snapshot itself, not only in the archive.
    assert.equal(git(repo, 'show', 'refs/paddock/snapshots/job1:app/main.txt'), 'v1\nv2-edit');
    assert.equal(git(repo, 'ls-tree', '--name-only', 'refs/paddock/snapshots/job1', 'app/gone.txt'), '');
  });

  it('keeps an empty nested repository (git init, no commit) instead of failing the capture', async () => {
    mkdirSync(path.join(wt, 'fresh'));
    git(path.join(wt, 'fresh'), 'init', '-q');
    write(wt, 'fresh/draft.txt', 'not committed anywhere\n');
    const { restored, before } = await roundTrip();
    assertSameState(treeState(restored), before);
  });

  const FILE_PROTOCOL = ['-c', 'protocol.file.allow=always'];

  /** The agent's worktree made again on a base whose vendor/lib is a submodule of `lib`. */
  function onBaseWithSubmodule(lib: string): void {
    git(repo, ...FILE_PROTOCOL, 'submodule', 'add', '-q', lib, 'vendor/lib');
    git(repo, 'commit', '-q', '-m', 'add submodule');
    base = git(repo, 'rev-parse', 'main');
    git(repo, 'worktree', 'remove', '--force', wt);
    git(repo, 'branch', '-D', 'paddock/job1');
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/job1', wt, 'main');
  }

  it('keeps a submodule initialised in the worktree, with commits made inside it and its edits', async () => {
    onBaseWithSubmodule(sb.repo({ 'lib.txt': 'lib v1\n' }, 'lib'));
    git(wt, '-c', 'protocol.file.allow=always', 'submodule', 'update', '--init', '-q');
    const sub = path.join(wt, 'vendor/lib');
    write(sub, 'lib.txt', 'lib v2 by the agent\n');
    git(sub, '-c', 'user.name=A', '-c', 'user.email=a@b.c', 'commit', '-q', '-am', 'agent commit in submodule');
    const subHead = git(sub, 'rev-parse', 'HEAD');
    write(sub, 'lib.txt', 'lib v3 uncommitted\n');
    // The submodule's git dir lives in the worktree's private git dir, deleted with the worktree.
    assert.match(readFileSync(path.join(sub, '.git'), 'utf8'), /worktrees/);
    const { restored, before } = await roundTrip({}, (rel) => rel === 'vendor/lib/.git');
    assertSameState(treeState(restored, (rel) => rel === 'vendor/lib/.git'), before);
    const restoredSub = path.join(restored, 'vendor/lib');
    assert.equal(git(restoredSub, 'rev-parse', 'HEAD'), subHead);
    assert.equal(git(restoredSub, 'log', '-1', '--format=%s'), 'agent commit in submodule');
    assert.equal(readFileSync(path.join(restoredSub, 'lib.txt'), 'utf8'), 'lib v3 uncommitted\n');
  });

  /** A commit made in the repository at `dir` and nowhere else. */
  function commitOnlyIn(dir: string, message: string): string {
    write(dir, 'agent.txt', `${message}\n`);
    git(dir, 'add', 'agent.txt');
    git(dir, 'commit', '-q', '-m', message);
    return git(dir, 'rev-parse', 'HEAD');
  }

  /** Whether the git dir `gitdir` (not a checkout) holds `sha` as a commit. */
  function holdsCommit(gitdir: string, sha: string): boolean {
    // --work-tree: after `git rm` its core.worktree still names the checkout that is gone.
    return git(gitdir, '--git-dir', gitdir, '--work-tree', gitdir, 'cat-file', '-t', sha) === 'commit';
  }

  // Bug 38: git keeps a submodule's git dir in the worktree's private git dir (modules/…) when its
  // checkout goes; nothing in the worktree points at it, `git status` is silent, and the removal
  // deleted it with the only copy of the commits made in it.
  for (const [how, takeCheckout] of [
    ['git submodule deinit -f', ['submodule', 'deinit', '-q', '-f', 'vendor/lib']],
    ['git rm', ['rm', '-q', '-f', 'vendor/lib']],
  ] as const) {
    it(`keeps the git dir of a submodule whose checkout is gone (${how}), with the commit made in it`, async () => {
      onBaseWithSubmodule(sb.repo({ 'lib.txt': 'lib v1\n' }, 'lib'));
      git(wt, ...FILE_PROTOCOL, 'submodule', 'update', '--init', '-q');
      const commit = commitOnlyIn(path.join(wt, 'vendor/lib'), 'agent commit only in the submodule');
      git(wt, ...takeCheckout);
      const ownGitDir = privateGitDir(wt);
      assert.ok(holdsCommit(path.join(ownGitDir, 'modules/vendor/lib'), commit), 'git kept the submodule git dir');

      const ev = await captureEvidence(options());
      await removeWorktree(repo, wt);
      assert.equal(existsSync(ownGitDir), false, 'the removal deleted the private git dir');

      // Restore puts it back where git looks for it.
      const restored = sb.path('restored');
      await restoreWorktree({ repo, snapshotRef: ev.snapshotRef, evidenceDir: sb.path('store', 'evidence'), target: restored, branch: 'paddock/job1' });
      const restoredModule = path.join(privateGitDir(restored), 'modules/vendor/lib');
      assert.ok(existsSync(restoredModule), "the submodule's git dir is back in the restored worktree's");
      assert.ok(holdsCommit(restoredModule, commit), 'the restored worktree holds the commit');
      assert.equal(git(restoredModule, '--git-dir', restoredModule, 'log', '-1', '--format=%s', commit), 'agent commit only in the submodule');
      if (how !== 'git rm') {
        // `git submodule update --init` takes the restored git dir up again: the commit is in the checkout's repository.
        git(restored, ...FILE_PROTOCOL, 'submodule', 'update', '--init', '-q');
        assert.equal(git(path.join(restored, 'vendor/lib'), 'cat-file', '-t', commit), 'commit');
      }

      // The evidence alone holds the commit, and the record and inventory say where.
      assert.deepEqual(ev.summary.keptGitDirs, ['modules/vendor/lib']);
      assert.deepEqual(ev.summary.nested, []);
      const manifest = await readManifest(ev.inventory);
      assert.deepEqual(manifest.gitdirs, []);
      assert.deepEqual(manifest.privateGitDirs?.map((g) => g.path), ['modules/vendor/lib']);
      const fromEvidence = sb.path('from-evidence');
      mkdirSync(fromEvidence);
      await extractArchive(path.join(sb.path('store', 'evidence'), manifest.privateGitDirs![0].archive), fromEvidence);
      assert.ok(holdsCommit(fromEvidence, commit), 'the evidence holds the commit');
    });
  }

  it("keeps a nested submodule's git dir once, inside its parent's, whether or not the parent is checked out", async () => {
    const inner = sb.repo({ 'inner.txt': 'inner v1\n' }, 'inner');
    const lib = sb.repo({ 'lib.txt': 'lib v1\n' }, 'lib');
    git(lib, ...FILE_PROTOCOL, 'submodule', 'add', '-q', inner, 'deps/inner');
    git(lib, 'commit', '-q', '-m', 'add inner');
    onBaseWithSubmodule(lib);
    git(wt, ...FILE_PROTOCOL, 'submodule', 'update', '--init', '--recursive', '-q');
    const commit = commitOnlyIn(path.join(wt, 'vendor/lib/deps/inner'), 'agent commit only in the nested submodule');
    git(path.join(wt, 'vendor/lib'), 'submodule', 'deinit', '-q', '-f', 'deps/inner');
    const nestedModule = 'modules/vendor/lib/modules/deps/inner';
    assert.ok(holdsCommit(path.join(privateGitDir(wt), nestedModule), commit));

    // The parent checked out: its git dir is archived through its checkout, the nested one with it, not again.
    const first = await captureEvidence(options());
    assert.equal(first.summary.keptGitDirs, undefined);
    const firstManifest = await readManifest(first.inventory);
    assert.deepEqual(firstManifest.gitdirs.map((g) => g.path), ['vendor/lib']);
    assert.equal(firstManifest.privateGitDirs, undefined);

    // The parent deinitialised too: one git dir, holding the nested one.
    git(wt, 'submodule', 'deinit', '-q', '-f', 'vendor/lib');
    const ev = await captureEvidence(options());
    await removeWorktree(repo, wt);
    const restored = sb.path('restored');
    await restoreWorktree({ repo, snapshotRef: ev.snapshotRef, evidenceDir: sb.path('store', 'evidence'), target: restored, branch: 'paddock/job1' });
    assert.ok(existsSync(path.join(privateGitDir(restored), nestedModule)), "the nested submodule's git dir is back");
    assert.ok(holdsCommit(path.join(privateGitDir(restored), nestedModule), commit));
    assert.deepEqual(ev.summary.keptGitDirs, ['modules/vendor/lib']);
    assert.deepEqual((await readManifest(ev.inventory)).gitdirs, []);
  });

  it("keeps a repository made by hand in the worktree's own git dir", async () => {
    const ownGitDir = privateGitDir(wt);
    const scratch = path.join(ownGitDir, 'scratch.git');
    git(sb.dir, 'init', '-q', '--bare', scratch);
    const src = sb.repo({ 'draft.txt': 'only in scratch.git\n' }, 'src');
    const commit = git(src, 'rev-parse', 'HEAD');
    git(src, 'push', '-q', scratch, 'main');
    rmSync(src, { recursive: true, force: true });

    const ev = await captureEvidence(options());
    await removeWorktree(repo, wt);
    const restored = sb.path('restored');
    await restoreWorktree({ repo, snapshotRef: ev.snapshotRef, evidenceDir: sb.path('store', 'evidence'), target: restored, branch: 'paddock/job1' });
    assert.ok(existsSync(path.join(privateGitDir(restored), 'scratch.git')), 'the repository is back');
    assert.ok(holdsCommit(path.join(privateGitDir(restored), 'scratch.git'), commit));
    assert.deepEqual(ev.summary.keptGitDirs, ['scratch.git']);
  });

  it('never drops a nested repository as regenerable, even inside node_modules', async () => {
    const inner = path.join(wt, 'node_modules', 'forked-dep');
    mkdirSync(inner, { recursive: true });
    git(inner, 'init', '-q', '-b', 'main');
    write(inner, 'patch.js', 'the agent fixed the dependency\n');
    git(inner, 'add', 'patch.js');
    git(inner, '-c', 'user.name=A', '-c', 'user.email=a@b.c', 'commit', '-q', '-m', 'local fix');
    write(wt, 'node_modules/other/index.js', 'regenerable\n');
    const ev = await captureEvidence(options());
    assert.equal(ev.summary.regenerable.files, 1, 'only node_modules/other/index.js');
    assert.deepEqual(ev.summary.nested, ['node_modules/forked-dep']);
    await removeWorktree(repo, wt);
    const restored = sb.path('restored');
    await restoreWorktree({ repo, snapshotRef: ev.snapshotRef, evidenceDir: sb.path('store', 'evidence'), target: restored, branch: 'paddock/job1' });
    assert.equal(git(path.join(restored, 'node_modules', 'forked-dep'), 'log', '-1', '--format=%s'), 'local fix');
  });

  it('restores from the inventory\'s own snapshot when a crash left the ref one capture ahead', async () => {
    write(wt, 'first.txt', 'first capture\n');
    write(wt, '.env', 'archived\n');
    const first = await captureEvidence(options());
    // A later capture moved the ref, then died before renaming its inventory into place.
    write(wt, 'second.txt', 'second capture\n');
    const tree = git(wt, 'write-tree');
    const later = git(repo, 'commit-tree', tree, '-p', first.snapshotSha, '-m', 'later');
    git(repo, 'update-ref', first.snapshotRef, later);
    await removeWorktree(repo, wt);
    const restored = sb.path('restored');
    await restoreWorktree({ repo, snapshotRef: first.snapshotRef, evidenceDir: sb.path('store', 'evidence'), target: restored, branch: 'paddock/job1' });
    assert.equal(readFileSync(path.join(restored, 'first.txt'), 'utf8'), 'first capture\n');
    assert.equal(readFileSync(path.join(restored, '.env'), 'utf8'), 'archived\n');
  });

  it('reads files hidden by assume-unchanged and skip-worktree', async () => {
    git(wt, 'update-index', '--assume-unchanged', 'c.txt');
    git(wt, 'update-index', '--skip-worktree', 'd.txt');
    write(wt, 'c.txt', 'c edited under assume-unchanged\n');
    write(wt, 'd.txt', 'd edited under skip-worktree\n');
    const ev = await captureEvidence(options());
    assert.equal(git(repo, 'show', `${ev.snapshotRef}:c.txt`), 'c edited under assume-unchanged');
    assert.equal(git(repo, 'show', `${ev.snapshotRef}:d.txt`), 'd edited under skip-worktree');
    assert.equal(ev.fileCount, 2);
    // The worktree's own flags are untouched.
    assert.match(git(wt, 'ls-files', '-v', 'c.txt'), /^h /);
  });

  it('archives ignored files and empty folders, drops regenerable ones and counts them', async () => {
    write(wt, '.env', 'API_URL=http://localhost\n');
    write(wt, 'build/out.bin', binary(300 * 1024, 5));
    mkdirSync(path.join(wt, 'empty/deeper'), { recursive: true });
    write(wt, 'node_modules/pkg/index.js', 'module.exports = 1;\n');
    write(wt, 'src/mod.pyc', binary(100, 2));
    const ev = await captureEvidence(options());
    assert.equal(ev.summary.regenerable.files, 2);
    assert.deepEqual(ev.summary.regenerable.roots.sort(), ['node_modules', 'src/mod.pyc']);
    assert.equal(ev.summary.archived.files, 2);
    assert.ok(ev.summary.emptyDirs >= 1);
    await removeWorktree(repo, wt);
    const restored = sb.path('restored');
    const result = await restoreWorktree({ repo, snapshotRef: ev.snapshotRef, evidenceDir: sb.path('store', 'evidence'), target: restored, branch: 'paddock/job1' });
    assert.deepEqual(result.notRestored.sort(), ['node_modules', 'src/mod.pyc']);
    assert.equal(readFileSync(path.join(restored, '.env'), 'utf8'), 'API_URL=http://localhost\n');
    assert.deepEqual(readFileSync(path.join(restored, 'build/out.bin')), binary(300 * 1024, 5));
    assert.ok(lstatSync(path.join(restored, 'empty/deeper')).isDirectory());
    assert.equal(existsSync(path.join(restored, 'node_modules')), false);
  });

  it('keeps commits that only the reflog knows after a reset --hard', async () => {
    write(wt, 'work.txt', 'committed then reset away\n');
    git(wt, 'add', 'work.txt');
    git(wt, 'commit', '-q', '-m', 'the agent commit');
    const lost = git(wt, 'rev-parse', 'HEAD');
    git(wt, 'reset', '-q', '--hard', 'HEAD~1');
    const ev = await captureEvidence(options());
    assert.equal(ev.summary.keptCommits, 1);
    await removeWorktree(repo, wt);
    git(repo, 'branch', '-D', 'paddock/job1');
    git(repo, 'reflog', 'expire', '--expire=now', '--all');
    git(repo, 'gc', '-q', '--prune=now');
    assert.equal(git(repo, 'cat-file', '-t', lost), 'commit');
    assert.equal(git(repo, 'merge-base', '--is-ancestor', lost, ev.snapshotRef), '');
  });

  it("keeps commits that only the worktree's own refs and their reflogs name (refs/worktree, refs/bisect), which go with its git dir", async () => {
    const head = git(wt, 'rev-parse', 'HEAD');
    const tree = git(wt, 'rev-parse', 'HEAD^{tree}');
    const commit = (message: string): string => git(wt, 'commit-tree', '-p', head, '-m', message, tree);
    const onlyRef = commit('named only by refs/worktree/keep');
    const onlyBisect = commit('named only by refs/bisect/bad');
    const onlyRefLog = commit('named only by the reflog of refs/worktree/moving');
    git(wt, 'update-ref', 'refs/worktree/keep', onlyRef);
    git(wt, 'update-ref', 'refs/bisect/bad', onlyBisect);
    git(wt, 'update-ref', '--create-reflog', 'refs/worktree/moving', onlyRefLog);
    git(wt, 'update-ref', 'refs/worktree/moving', head);
    assert.equal(git(repo, 'for-each-ref', 'refs/worktree/', 'refs/bisect/'), '', 'the main worktree does not see them: they live in the worktree\'s git dir');
    const ev = await captureEvidence(options());
    assert.equal(ev.summary.keptCommits, 3);
    await removeWorktree(repo, wt);
    git(repo, 'branch', '-D', 'paddock/job1');
    git(repo, 'reflog', 'expire', '--expire=now', '--all');
    git(repo, 'gc', '-q', '--prune=now');
    for (const sha of [onlyRef, onlyBisect, onlyRefLog]) {
      assert.equal(git(repo, 'cat-file', '-t', sha), 'commit');
      assert.equal(git(repo, 'merge-base', '--is-ancestor', sha, ev.snapshotRef), '');
    }
    // And the refs themselves come back in the restored worktree.
    const restored = sb.path('restored');
    const result = await restoreWorktree({ repo, snapshotRef: ev.snapshotRef, evidenceDir: sb.path('store', 'evidence'), target: restored, branch: 'paddock/job1' });
    assert.deepEqual(result.problems, []);
    assert.equal(git(restored, 'for-each-ref', '--format=%(refname) %(objectname)', 'refs/worktree/', 'refs/bisect/'), `refs/bisect/bad ${onlyBisect}\nrefs/worktree/keep ${onlyRef}\nrefs/worktree/moving ${head}`);
  });

  /** Capture, remove the worktree, delete the branch and collect what no ref keeps (as a cleanup and a later gc do). */
  async function captureRemoveAndCollect(): Promise<string> {
    const ev = await captureEvidence(options());
    await removeWorktree(repo, wt);
    git(repo, 'branch', '-D', 'paddock/job1');
    git(repo, 'reflog', 'expire', '--expire=now', '--all');
    git(repo, 'gc', '-q', '--prune=now');
    return ev.snapshotRef;
  }

  function restoreFrom(snapshotRef: string, target = sb.path('restored')) {
    return restoreWorktree({ repo, snapshotRef, evidenceDir: sb.path('store', 'evidence'), target, branch: 'paddock/job1' });
  }

  const ownRefs = (dir: string) => git(dir, 'for-each-ref', '--format=%(refname) %(objectname)', 'refs/worktree/');

  it('a ref of the worktree\'s own whose name git accepts but is unusual (a no-break space) is recorded and comes back', async () => {
    git(wt, 'update-ref', 'refs/worktree/note\u00a0x', 'HEAD');
    const before = ownRefs(wt);
    const result = await restoreFrom(await captureRemoveAndCollect());
    assert.deepEqual(result.problems, []);
    assert.equal(ownRefs(result.path), before);
  });

  it('an inventory entry of the worktree\'s own refs that does not read, or a ref git cannot write, is said; the other refs and the rest come back', async () => {
    git(wt, 'update-ref', 'refs/worktree/keep', 'HEAD');
    const before = ownRefs(wt);
    const snapshotRef = await captureRemoveAndCollect();
    const inventory = sb.path('store', 'evidence', 'inventory.json');
    const manifest = JSON.parse(readFileSync(inventory, 'utf8')) as { worktreeRefs: unknown[] };
    // One entry no worktree ref can be, and one naming an object the repository does not have.
    manifest.worktreeRefs.unshift({ name: 'refs/heads/not-its-own', sha: 'f'.repeat(40) }, { name: 'refs/worktree/missing', sha: 'e'.repeat(40) });
    writeFileSync(inventory, JSON.stringify(manifest));
    const result = await restoreFrom(snapshotRef);
    assert.equal(result.problems.length, 2, result.problems.join('\n'));
    assert.equal(result.problems[0], "1 of the worktree's own refs could not be read from the inventory and are not back");
    assert.match(result.problems[1]!, /^the worktree's own ref refs\/worktree\/missing is not back \(.+\)$/);
    assert.equal(ownRefs(result.path), before);
  });

  it('keeps the objects the worktree\'s own refs name that are no commit (a blob, a tree, a tag object no tag ref names) through gc, and writes each ref on its own', async () => {
    const head = git(wt, 'rev-parse', 'HEAD');
    const fed = (input: string, ...args: string[]) => execFileSync('git', args, { cwd: wt, input, encoding: 'utf8' }).trim();
    const blob = fed('a blob only a worktree ref names\n', 'hash-object', '-w', '--stdin');
    const tree = fed(`100644 blob ${blob}\tonly.txt\n`, 'mktree');
    const onlyCommit = git(wt, 'commit-tree', '-p', head, '-m', 'named only by refs/worktree/keep', git(wt, 'rev-parse', 'HEAD^{tree}'));
    git(wt, '-c', 'user.name=A', '-c', 'user.email=a@b.c', 'tag', '-a', '-m', 'the tag\u00e9 message', 'gone', head);
    const tag = git(wt, 'rev-parse', 'refs/tags/gone');
    git(wt, 'update-ref', 'refs/worktree/atag', tag);
    git(wt, 'tag', '-d', 'gone');
    git(wt, 'update-ref', 'refs/worktree/blob', blob);
    git(wt, 'update-ref', 'refs/worktree/tree', tree);
    git(wt, 'update-ref', 'refs/worktree/keep', onlyCommit);
    const before = ownRefs(wt);
    const result = await restoreFrom(await captureRemoveAndCollect());
    assert.deepEqual(result.problems, []);
    assert.equal(ownRefs(result.path), before);
    assert.equal(git(result.path, 'cat-file', '-t', 'refs/worktree/atag'), 'tag');
    assert.equal(git(result.path, 'cat-file', 'blob', 'refs/worktree/blob'), 'a blob only a worktree ref names');
    assert.equal(git(result.path, 'cat-file', 'blob', 'refs/worktree/tree:only.txt'), 'a blob only a worktree ref names');
  });

  it('keeps every commit a reset --hard dropped, past 200 of them and past 200 separate lines of work', async () => {
    // One line of 210 commits and 205 commits side by side on the base, made in one fast-import (a
    // git process per commit takes a minute here), then written into HEAD's reflog as an agent's
    // commits, resets and checkouts would have left them: oldest first, none on any ref.
    const baseSha = git(wt, 'rev-parse', 'HEAD');
    const marks = sb.path('marks');
    const who = 'A <a@b.c> 1700000000 +0000';
    let stream = '';
    for (let i = 1; i <= 210; i++) {
      const data = `${i}\n`;
      stream += `commit refs/tmp/line\nmark :${i}\ncommitter ${who}\ndata ${`c${i}`.length}\nc${i}\n${i === 1 ? `from ${baseSha}\n` : ''}M 100644 inline line.txt\ndata ${data.length}\n${data}\n`;
    }
    for (let i = 1; i <= 205; i++) stream += `commit refs/tmp/t${i}\nmark :${1000 + i}\ncommitter ${who}\ndata ${`t${i}`.length}\nt${i}\nfrom ${baseSha}\n\n`;
    execFileSync('git', ['fast-import', '--quiet', `--export-marks=${marks}`], { cwd: repo, input: stream });
    const shaOf = new Map(readFileSync(marks, 'utf8').trim().split('\n').map((l) => l.slice(1).split(' ') as [string, string]));
    const lineShas = Array.from({ length: 210 }, (_, i) => shaOf.get(String(i + 1))!);
    const sideTips = Array.from({ length: 205 }, (_, i) => shaOf.get(String(1001 + i))!);
    execFileSync('sh', ['-c', 'git for-each-ref --format="delete %(refname)" refs/tmp/ | git update-ref --stdin'], { cwd: repo });
    const log: string[] = [];
    lineShas.forEach((sha, i) => log.push(`${i === 0 ? baseSha : lineShas[i - 1]} ${sha} ${who}\tcommit: c${i + 1}`));
    log.push(`${lineShas[209]} ${baseSha} ${who}\treset: moving to HEAD~210`);
    for (const sha of sideTips) log.push(`${baseSha} ${sha} ${who}\tcommit`, `${sha} ${baseSha} ${who}\tcheckout: moving to main`);
    appendFileSync(git(wt, 'rev-parse', '--path-format=absolute', '--git-path', 'logs/HEAD'), log.join('\n') + '\n');

    const ev = await captureEvidence(options());
    assert.equal(ev.summary.keptCommits, 206, 'the tips only: each keeps its ancestors');
    assert.ok(git(repo, 'rev-list', '--no-walk', '--parents', ev.snapshotRef).split(' ').length - 1 <= 201, 'no commit with more than 200 extra parents');
    await removeWorktree(repo, wt);
    git(repo, 'branch', '-D', 'paddock/job1');
    git(repo, 'reflog', 'expire', '--expire=now', '--all');
    git(repo, 'gc', '-q', '--prune=now');
    const kept = new Set(git(repo, 'rev-list', ev.snapshotRef).split('\n'));
    for (const sha of [...lineShas, ...sideTips]) assert.ok(kept.has(sha), `${sha} is kept`);
    assert.equal(git(repo, 'show', `${lineShas[209]}:line.txt`), '210');
  });

  it('gives back byte for byte what .gitattributes and core.autocrlf would convert (eol, ident, clean filters)', async () => {
    write(wt, '.gitattributes', '*.txt text eol=crlf\n*.id ident\n*.up filter=up\n');
    git(wt, 'add', '.gitattributes');
    git(wt, 'commit', '-q', '-m', 'attributes');
    git(repo, 'config', 'filter.up.clean', 'tr a-z A-Z');
    git(repo, 'config', 'core.autocrlf', 'true');
    write(wt, 'mixed.txt', 'a\r\nb\n');
    write(wt, 'lf-only.txt', 'one\ntwo\n');
    write(wt, 'c.txt', 'c edited\r\nlone lf\n');
    write(wt, 'h.id', '$Id: hello $\n');
    write(wt, 's.up', 'hello\n');
    write(wt, 'plain.dat', 'x\r\ny\n');
    write(wt, 'ignored.bin', Buffer.from([0, 1, 13, 10, 10]));
    // Added by the agent too: the index then holds git's form, the disk the agent's.
    git(wt, 'add', 'h.id', 's.up');
    const before = treeState(wt);
    const ev = await captureEvidence(options());
    await removeWorktree(repo, wt);
    git(repo, 'branch', '-D', 'paddock/job1');
    git(repo, 'reflog', 'expire', '--expire=now', '--all');
    git(repo, 'gc', '-q', '--prune=now');
    const restored = sb.path('restored');
    await restoreWorktree({ repo, snapshotRef: ev.snapshotRef, evidenceDir: sb.path('store', 'evidence'), target: restored, branch: 'paddock/job1' });
    assertSameState(treeState(restored), before);
    // The snapshot itself keeps git's form, so its diff is the one git shows.
    assert.equal(git(repo, 'show', `${ev.snapshotRef}:s.up`), 'HELLO');
  });

  it('gives back byte for byte what attributes from outside the tree would convert (info/attributes, core.attributesFile)', async () => {
    write(repo, '.git/info/attributes', '*.txt text eol=crlf\n');
    write(sb.path('home'), 'attrs', '*.id ident\n');
    git(repo, 'config', 'core.attributesFile', sb.path('home', 'attrs'));
    write(wt, 'mixed.txt', 'a\r\nb\n');
    write(wt, 'h.id', '$Id: hello $\n');
    const { restored, before } = await roundTrip();
    assertSameState(treeState(restored), before);
  });

  it('gives back odd names, modes, symlinks and binary files byte for byte', async () => {
    write(wt, 'tab\there.txt', 'tab\n');
    write(wt, 'new\nline.txt', 'newline in the name\n');
    // A name that is not UTF-8 (0xff can start no UTF-8 sequence), written by its bytes.
    writeFileSync(Buffer.concat([Buffer.from(`${wt}/`), Buffer.from([0x62, 0x61, 0x64, 0xff, 0x2e, 0x74])]), 'latin1 name\n');
    write(wt, 'secret.key', 'private\n');
    chmodSync(path.join(wt, 'secret.key'), 0o600);
    write(wt, 'run.sh', '#!/bin/sh\n');
    chmodSync(path.join(wt, 'run.sh'), 0o755);
    symlinkSync('README.md', path.join(wt, 'link-in'));
    symlinkSync('/etc/hostname', path.join(wt, 'link-out'));
    symlinkSync('missing-target', path.join(wt, 'build-link'));
    write(wt, 'big.bin', binary(2 * 1024 * 1024, 9));
    rmSync(path.join(wt, 'c.txt'));
    const { restored, before } = await roundTrip();
    assertSameState(treeState(restored), before);
  });

  it('handles names that are not UTF-8 as bytes: a tracked-to-be file, an ignored one, an empty folder, a nested repository', async () => {
    const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
    writeFileSync(bytes(`${wt}/`, 'bad', [0xff], 'name'), 'a');
    mkdirSync(bytes(`${wt}/build`), { recursive: true });
    writeFileSync(bytes(`${wt}/build/ig`, [0xff], 'n'), 'ignored bytes');
    mkdirSync(bytes(`${wt}/empty`, [0xfe], 'dir'));
    // git runs in a folder named by a string: the nested repository is made first, then renamed by its bytes.
    mkdirSync(path.join(wt, 'plain'));
    git(path.join(wt, 'plain'), 'init', '-q', '-b', 'main');
    renameSync(bytes(`${wt}/plain`), bytes(`${wt}/in`, [0xfd], 'ner'));
    writeFileSync(bytes(`${wt}/in`, [0xfd], 'ner/x', [0xfc]), 'inner file');
    const walk = await walkWorktree(wt);
    assert.deepEqual(walk.unreadable, []);
    assert.deepEqual(walk.undeletable, []);
    assert.deepEqual(await walkWorktree(wt, { blocking: true }), walk);
    const ev = await captureEvidence(options());
    assert.deepEqual(ev.summary.lost, [], 'nothing is lost (no consent was needed)');
    assert.equal(ev.summary.captured.files >= 4, true);
    assert.deepEqual(ev.summary.nested, [decodeName(bytes('in', [0xfd], 'ner'))]);
    assert.equal(ev.blocked.length, 0, 'removal is not stopped by a name');
    const before = treeState(wt);
    await removeWorktree(repo, wt);
    const restored = sb.path('restored');
    const result = await restoreWorktree({ repo, snapshotRef: ev.snapshotRef, evidenceDir: sb.path('store', 'evidence'), target: restored, branch: 'paddock/job1' });
    assert.deepEqual(result.notRestored, []);
    assertSameState(treeState(restored), before);
    assert.equal(printable(decodeName(bytes('bad', [0xff], 'name'))), 'bad\\xffname', 'shown to people escaped');
  });

  it('walks and captures the same with blocking calls (a paddock command) as on the thread pool', async () => {
    write(wt, 'tab\there.txt', 'tab\n');
    write(wt, 'run.sh', '#!/bin/sh\n');
    chmodSync(path.join(wt, 'run.sh'), 0o755);
    symlinkSync('README.md', path.join(wt, 'link-in'));
    symlinkSync('missing-target', path.join(wt, 'dangling'));
    write(wt, '.env', 'API_URL=http://localhost\n');
    write(wt, 'build/out.bin', binary(10 * 1024, 5));
    mkdirSync(path.join(wt, 'empty/deeper'), { recursive: true });
    const inner = path.join(wt, 'inner');
    mkdirSync(inner);
    git(inner, 'init', '-q', '-b', 'main');
    write(inner, 'x.txt', 'inner\n');
    for (let i = 0; i < 300; i++) write(wt, `many/f${i}.txt`, `${i}\n`); // past one batch of lstat calls
    const onThreadPool = await walkWorktree(wt);
    const blocking = await walkWorktree(wt, { blocking: true });
    assert.deepEqual(blocking, onThreadPool);
    assert.ok(onThreadPool.entries.length > 300 && onThreadPool.nested.length === 1);
    const { restored, before } = await roundTrip({ blockingFs: true });
    assertSameState(treeState(restored), before);
  });

  it('stops for consent when the archive would be over the limit, and records exactly what is dropped with it', async () => {
    write(wt, 'build/huge.bin', binary(600 * 1024, 1));
    write(wt, 'build/small.txt', 'small\n');
    write(wt, 'kept.txt', 'tracked-to-be\n');
    await assert.rejects(captureEvidence(options({ archiveLimitBytes: 512 * 1024 })), (err: unknown) => {
      assert.ok(err instanceof PaddockError && err.code === CONSENT_NEEDED);
      assert.match((err as Error).message, /build\/huge\.bin/);
      return true;
    });
    assert.equal(existsSync(sb.path('store', 'evidence', 'inventory.json')), false, 'no evidence counts before consent');
    const ev = await captureEvidence(options({ archiveLimitBytes: 512 * 1024, dropUnarchivable: true }));
    assert.deepEqual(ev.summary.lost.map((l) => [l.path, l.why]), [['build/huge.bin', 'too-big']]);
    await removeWorktree(repo, wt);
    const restored = sb.path('restored');
    await restoreWorktree({ repo, snapshotRef: ev.snapshotRef, evidenceDir: sb.path('store', 'evidence'), target: restored, branch: 'paddock/job1' });
    assert.equal(readFileSync(path.join(restored, 'build/small.txt'), 'utf8'), 'small\n');
    assert.equal(readFileSync(path.join(restored, 'kept.txt'), 'utf8'), 'tracked-to-be\n');
    assert.equal(existsSync(path.join(restored, 'build/huge.bin')), false);
  });

  it('archives what git will not add — names it refuses, a FIFO where a tracked file was, bytes its encoding cannot decode — and gives it back byte for byte', async () => {
    // Each of these failed the whole capture ("invalid path", "can only add regular files", "failed to encode"), at every retry and with consent.
    write(wt, '.GIT/notes.txt', 'notes\n');
    write(wt, 'GIT~1', 'short name\n');
    write(wt, 'sub/.git./f', 'dot\n');
    write(wt, 'docs/.Git/y.txt', 'y\n');
    write(wt, 'real', '[x]\n');
    symlinkSync('real', path.join(wt, '.gitmodules'));
    rmSync(path.join(wt, 'c.txt'));
    execFileSync('mkfifo', [path.join(wt, 'c.txt')]);
    write(wt, '.gitattributes', '*.u16 working-tree-encoding=UTF-16LE\n');
    write(wt, 'good.u16', Buffer.from('h\0i\0\n\0', 'latin1'));
    write(wt, 'odd.u16', 'abc'); // an odd length is no UTF-16
    write(wt, 'd.txt', 'd edited\n');
    const { restored, before } = await roundTrip();
    assertSameState(treeState(restored), before);
    const manifest = await readManifest(sb.path('store', 'evidence', 'inventory.json'));
    assert.deepEqual(manifest.summary.lost, [], 'all of it could be read: nothing needed consent');
    const snapshot = 'refs/paddock/snapshots/job1';
    // The tracked file git would not take is not recorded as deleted: its entry stays, the FIFO is in the archive.
    assert.equal(git(repo, 'show', `${snapshot}:c.txt`), 'c before');
    assert.equal(git(repo, 'show', `${snapshot}:d.txt`), 'd edited', 'the rest is captured as usual');
    assert.equal(readFileSync(path.join(restored, 'odd.u16'), 'latin1'), 'abc');
  });

  it('stops for consent over files nobody can read (untracked, tracked and edited, in a folder that cannot be searched), and with consent records them as lost', async function () {
    write(wt, 'd.txt', 'd edited\n');
    write(wt, 'keep.txt', 'kept\n');
    write(wt, 'locked.txt', 'secret\n');
    appendFileSync(path.join(wt, 'c.txt'), 'edited, then locked\n');
    chmodSync(path.join(wt, 'locked.txt'), 0o000);
    chmodSync(path.join(wt, 'c.txt'), 0o000);
    // A folder that can be listed but not searched: git cannot even stat what is in it ("unable to stat").
    write(wt, 'shut/new.txt', 'new\n');
    chmodSync(path.join(wt, 'shut'), 0o600);
    let runs: ReturnType<typeof captureWhereChmodCounts>;
    try {
      runs = captureWhereChmodCounts(this, [options(), options({ dropUnarchivable: true })]);
    } finally {
      chmodSync(path.join(wt, 'shut'), 0o755); // or the sandbox cannot be deleted by its owner
    }
    assert.equal(runs[0].code, CONSENT_NEEDED, runs[0].message);
    assert.match(runs[0].message!, /^Nothing was removed: some files cannot be read: .*c\.txt \(cannot be read\).*locked\.txt \(cannot be read\)/);
    assert.deepEqual(runs[1].lost?.map((l) => [l.path, l.why]).sort(), [['c.txt', 'unreadable'], ['locked.txt', 'unreadable'], ['shut/new.txt', 'unreadable']], runs[1].message);
    const manifest = await readManifest(sb.path('store', 'evidence', 'inventory.json'));
    assert.equal(manifest.snapshotSha, runs[1].snapshotSha);
    assert.deepEqual(manifest.summary.lost.map((l) => l.path).sort(), ['c.txt', 'locked.txt', 'shut/new.txt']);
    // The rest is kept; the unreadable tracked file keeps the entry its index had (not a deletion).
    assert.deepEqual(runs[1].files, { 'c.txt': 'c before\n', 'd.txt': 'd edited\n', 'keep.txt': 'kept\n' });
  });

  it("stops for consent over a file of a stopped operation in the worktree's git dir nobody can read, and with consent records it, which restore then says", async function () {
    write(wt, 'd.txt', 'd edited\n');
    write(wt, 'keep.txt', 'kept\n');
    const message = path.join(privateGitDir(wt), 'MERGE_MSG');
    writeFileSync(message, 'the message of a merge the agent had begun\n');
    chmodSync(message, 0o000);
    const runs = captureWhereChmodCounts(this, [options(), options({ dropUnarchivable: true })]);
    assert.equal(runs[0].code, CONSENT_NEEDED, runs[0].message);
    assert.equal(
      runs[0].message,
      "Nothing was removed: files of the worktree's git dir (a stopped merge, rebase or bisect, its sparse checkout) cannot be read: MERGE_MSG. Fix them and retry, or clean up anyway to drop them.",
    );
    assert.equal(runs[1].code, undefined, runs[1].message);
    const manifest = await readManifest(sb.path('store', 'evidence', 'inventory.json'));
    assert.deepEqual(manifest.gitDirFilesUnread, ['MERGE_MSG']);
    chmodSync(message, 0o644);
    // Handed back from nobody (root's git refuses a repository another user owns).
    if (process.getuid?.() === 0) execFileSync('chown', ['-R', `${process.getuid()}:${process.getgid?.() ?? 0}`, sb.dir]);
    await removeWorktree(repo, wt);
    const result = await restoreWorktree({ repo, snapshotRef: 'refs/paddock/snapshots/job1', evidenceDir: sb.path('store', 'evidence'), target: sb.path('restored'), branch: 'paddock/job1' });
    assert.deepEqual(result.problems, ["the worktree's MERGE_MSG (the git operation stopped there) could not be read at cleanup and is not back"]);
  });

  /**
   * Runs each capture where a file with mode 000 cannot be read: as root (which reads anything) in a
   * node process as nobody, over a sandbox handed to nobody; otherwise in a child as the same user.
   * Returns each capture's outcome and, after one that completed, some files of its snapshot.
   */
  function captureWhereChmodCounts(test: Mocha.Context, runs: CaptureOptions[]): { code?: string; message?: string; lost?: LostEntry[]; snapshotSha?: string; files?: Record<string, string> }[] {
    const asNobody = process.getuid?.() === 0 ? { uid: NOBODY, gid: NOBODY } : {};
    if ('uid' in asNobody) execFileSync('chown', ['-R', `${NOBODY}:${NOBODY}`, sb.dir]);
    const evidence = require.resolve('../../../../src/core/git/evidence');
    const script = `
      const { execFileSync } = require('node:child_process');
      const { captureEvidence } = require(${JSON.stringify(evidence)});
      (async () => {
        const out = [];
        for (const opts of JSON.parse(process.argv[1])) {
          try {
            const ev = await captureEvidence(opts);
            const files = {};
            for (const f of ['c.txt', 'd.txt', 'keep.txt']) files[f] = execFileSync('git', ['show', ev.snapshotSha + ':' + f], { cwd: opts.repo, encoding: 'utf8' });
            out.push({ lost: ev.summary.lost, snapshotSha: ev.snapshotSha, files });
          } catch (err) {
            out.push({ code: err.code, message: err.message });
          }
        }
        console.log(JSON.stringify(out));
      })();`;
    const res = spawnSync(process.execPath, ['-e', script, JSON.stringify(runs)], { env: process.env, encoding: 'utf8', timeout: 60_000, ...asNobody });
    if (res.status !== 0 && /EACCES|Cannot find module/.test(res.stderr)) test.skip(); // the built files are not readable by nobody here
    assert.equal(res.status, 0, res.stderr);
    return JSON.parse(res.stdout);
  }

  it('keeps the staging area: a file staged and edited again comes back staged and edited (MM, AM), its staged version kept', async () => {
    write(wt, 'c.txt', 'c staged\n');
    git(wt, 'add', 'c.txt');
    write(wt, 'c.txt', 'c edited after staging\n');
    write(wt, 'sm.txt', 'staged\n');
    git(wt, 'add', 'sm.txt');
    write(wt, 'sm.txt', 'modified\n');
    write(wt, 'only-staged.txt', 'staged only\n');
    git(wt, 'add', 'only-staged.txt');
    const statusBefore = git(wt, 'status', '--porcelain');
    const stagedBlob = git(wt, 'rev-parse', ':sm.txt');
    const { restored, before } = await roundTrip();
    assertSameState(treeState(restored), before);
    assert.equal(git(restored, 'status', '--porcelain'), statusBefore);
    assert.match(statusBefore, /^MM c\.txt$/m);
    assert.match(statusBefore, /^AM sm\.txt$/m);
    assert.equal(git(restored, 'show', ':sm.txt'), 'staged');
    assert.equal(git(restored, 'show', ':c.txt'), 'c staged');
    // The staged versions are reachable from the snapshot ref: gc cannot take them.
    git(repo, 'worktree', 'remove', '--force', restored);
    git(repo, 'worktree', 'prune');
    git(repo, 'reflog', 'expire', '--expire=now', '--all');
    git(repo, 'gc', '-q', '--prune=now');
    assert.equal(git(repo, 'cat-file', '-p', stagedBlob), 'staged');
  });

  it('keeps the staged side of a merge in progress: conflicted paths take HEAD, the rest stays staged', async () => {
    write(wt, 'c.txt', 'c ours\n');
    git(wt, 'commit', '-q', '-am', 'ours');
    git(wt, 'checkout', '-q', '-b', 'theirs', 'main');
    write(wt, 'c.txt', 'c theirs\n');
    write(wt, 'd.txt', 'd theirs\n');
    git(wt, 'commit', '-q', '-am', 'theirs');
    git(wt, 'checkout', '-q', 'paddock/job1');
    assert.throws(() => git(wt, 'merge', '-q', 'theirs'));
    const ev = await captureEvidence(options());
    const manifest = JSON.parse(readFileSync(sb.path('store', 'evidence', 'inventory.json'), 'utf8'));
    assert.equal(manifest.index.unmerged, 1);
    assert.equal(git(repo, 'show', `${manifest.index.tree}:d.txt`), 'd theirs', 'the cleanly merged path stays staged');
    assert.equal(git(repo, 'merge-base', '--is-ancestor', manifest.index.commit, ev.snapshotRef), '');
  });

  /** A linked worktree made inside the agent's at `inner-wt`, with a commit and an untracked file; returns its commit. */
  function innerWorktree(...addArgs: string[]): string {
    git(wt, 'worktree', 'add', '-q', ...addArgs, 'inner-wt');
    const inner = path.join(wt, 'inner-wt');
    write(inner, 'inner.txt', 'committed in the inner worktree\n');
    git(inner, 'add', 'inner.txt');
    git(inner, 'commit', '-q', '-m', 'inner commit');
    write(inner, 'draft.txt', 'untracked in the inner worktree\n');
    return git(inner, 'rev-parse', 'HEAD');
  }

  /** The repository's worktrees, as `git worktree list --porcelain` gives them (one block each). */
  function registrations(): string[] {
    return git(repo, 'worktree', 'list', '--porcelain').split('\n\n');
  }

  const skipInnerDotGit = (rel: string) => rel === 'inner-wt/.git';

  /** The restored inner worktree is a working linked worktree at `innerHead`, the only registration at its path. */
  function assertLinkedAgain(restoredInner: string, innerHead: string): void {
    assert.equal(git(restoredInner, 'rev-parse', '--show-toplevel'), restoredInner);
    assert.equal(git(restoredInner, 'rev-parse', 'HEAD'), innerHead);
    assert.equal(git(restoredInner, 'status', '--porcelain'), '?? draft.txt');
    const listed = registrations().filter((r) => r.startsWith(`worktree ${restoredInner}\n`));
    assert.equal(listed.length, 1);
    assert.doesNotMatch(listed[0], /prunable/);
  }

  it('keeps the commits of a linked worktree the agent made inside its worktree, forgets its registration at cleanup, and links it again at restore', async () => {
    const innerHead = innerWorktree('--detach');
    const before = treeState(wt, skipInnerDotGit);
    await captureEvidence(options());
    await removeWorktree(repo, wt);
    // Nothing pruned by hand: the removal forgot the inner worktree's registration, its folder gone with the agent's.
    assert.ok(registrations().every((r) => !r.includes(path.join(wt, 'inner-wt'))));
    git(repo, 'reflog', 'expire', '--expire=now', '--all');
    git(repo, 'gc', '-q', '--prune=now');
    assert.equal(git(repo, 'cat-file', '-t', innerHead), 'commit');
    assert.equal(git(repo, 'merge-base', '--is-ancestor', innerHead, 'refs/paddock/snapshots/job1'), '');
    // Back at the original path, as a plain `paddock restore ID` does.
    const result = await restoreWorktree({ repo, snapshotRef: 'refs/paddock/snapshots/job1', evidenceDir: sb.path('store', 'evidence'), target: wt, branch: 'paddock/job1' });
    assert.deepEqual(result.problems, []);
    assertSameState(treeState(wt, skipInnerDotGit), before);
    assertLinkedAgain(path.join(wt, 'inner-wt'), innerHead);
  });

  it("keeps the commits only an inner worktree's own refs and reflogs name, before forgetting its registration", async () => {
    const innerHead = innerWorktree('-b', 'agent-inner');
    const inner = path.join(wt, 'inner-wt');
    const tree = git(inner, 'rev-parse', 'HEAD^{tree}');
    const onlyRef = git(inner, 'commit-tree', '-p', innerHead, '-m', 'named only by the inner refs/worktree/keep', tree);
    const onlyRefLog = git(inner, 'commit-tree', '-p', innerHead, '-m', 'named only by the reflog of the inner refs/worktree/moving', tree);
    git(inner, 'update-ref', 'refs/worktree/keep', onlyRef);
    git(inner, 'update-ref', '--create-reflog', 'refs/worktree/moving', onlyRefLog);
    git(inner, 'update-ref', 'refs/worktree/moving', innerHead);
    const ev = await captureEvidence(options());
    await removeWorktree(repo, wt);
    assert.ok(registrations().every((r) => !r.includes(inner)), 'forgotten once its commits are kept');
    git(repo, 'reflog', 'expire', '--expire=now', '--all');
    git(repo, 'gc', '-q', '--prune=now');
    for (const sha of [onlyRef, onlyRefLog]) assert.equal(git(repo, 'merge-base', '--is-ancestor', sha, ev.snapshotRef), '');
  });

  it('links an inner worktree again at its original path over the registration an older cleanup left there', async () => {
    const innerHead = innerWorktree('-b', 'agent-inner');
    const before = treeState(wt, skipInnerDotGit);
    await captureEvidence(options());
    // What an older version's cleanup did: the agent's worktree removed, its inner worktree's registration left.
    git(repo, 'worktree', 'remove', '--force', '--force', wt);
    assert.ok(registrations().some((r) => r.startsWith(`worktree ${path.join(wt, 'inner-wt')}\n`) && r.includes('prunable')));
    const result = await restoreWorktree({ repo, snapshotRef: 'refs/paddock/snapshots/job1', evidenceDir: sb.path('store', 'evidence'), target: wt, branch: 'paddock/job1' });
    assert.deepEqual(result.problems, []);
    assertSameState(treeState(wt, skipInnerDotGit), before);
    const restoredInner = path.join(wt, 'inner-wt');
    assertLinkedAgain(restoredInner, innerHead);
    assert.equal(git(restoredInner, 'symbolic-ref', 'HEAD'), 'refs/heads/agent-inner');
  });

  it('restores an inner worktree elsewhere on its branch, with no registration left at its old path', async () => {
    const innerHead = innerWorktree('-b', 'agent-inner');
    const { restored, before } = await roundTrip({}, skipInnerDotGit);
    assertSameState(treeState(restored, skipInnerDotGit), before);
    const restoredInner = path.join(restored, 'inner-wt');
    assertLinkedAgain(restoredInner, innerHead);
    // The branch was free: no registration at the old path still held it.
    assert.equal(git(restoredInner, 'symbolic-ref', 'HEAD'), 'refs/heads/agent-inner');
    assert.ok(registrations().every((r) => !r.includes(path.join(wt, 'inner-wt'))));
  });

  it('leaves registered an inner worktree whose commit or staged change nothing kept, and other worktrees whose folders are away', async () => {
    // Removed with no capture: the inner commit is only in its worktree's HEAD and reflog.
    innerWorktree('--detach');
    git(wt, 'worktree', 'add', '-q', '-b', 'staged-inner', 'staged-wt');
    write(wt, 'staged-wt/new.txt', 'staged only\n');
    git(path.join(wt, 'staged-wt'), 'add', 'new.txt');
    const away = sb.path('away');
    git(repo, 'worktree', 'add', '-q', '--detach', away);
    rmSync(away, { recursive: true });
    await removeWorktree(repo, wt);
    for (const folder of [path.join(wt, 'inner-wt'), path.join(wt, 'staged-wt'), away]) {
      assert.ok(registrations().some((r) => r.startsWith(`worktree ${folder}\n`)), folder);
    }
  });

  it('keeps a file too large for a binary patch in the snapshot, leaves it out of the verified patch and says so', async () => {
    write(wt, 'huge.bin', binary(3 * 1024 * 1024, 4));
    write(wt, 'README.md', 'edited\n');
    const before = treeState(wt);
    // The limit is 256 MiB (git cannot patch 2 GiB at all); a small one shows the same path in a unit test.
    const ev = await captureEvidence(options({ patchBlobLimitBytes: 1024 * 1024 }));
    const manifest = JSON.parse(readFileSync(sb.path('store', 'evidence', 'inventory.json'), 'utf8'));
    assert.deepEqual(manifest.patchOmits, ['huge.bin']);
    assert.equal(ev.fileCount, 2);
    const patch = readFileSync(ev.patch, 'latin1');
    assert.match(patch, /README\.md/);
    assert.doesNotMatch(patch, /huge\.bin/);
    await removeWorktree(repo, wt);
    const restored = sb.path('restored');
    await restoreWorktree({ repo, snapshotRef: ev.snapshotRef, evidenceDir: sb.path('store', 'evidence'), target: restored, branch: 'paddock/job1' });
    assertSameState(treeState(restored), before);
  });

  it('captures an orphan branch (no commit yet) and restores it on that unborn branch', async () => {
    git(wt, 'checkout', '-q', '--orphan', 'pages');
    write(wt, 'index.html', '<p>pages</p>\n');
    git(wt, 'add', 'index.html');
    write(wt, 'draft.html', 'untracked\n');
    const statusBefore = git(wt, 'status', '--porcelain');
    const ev = await captureEvidence(options());
    assert.equal(ev.headSha, null);
    await removeWorktree(repo, wt);
    const restored = sb.path('restored');
    const result = await restoreWorktree({ repo, snapshotRef: ev.snapshotRef, evidenceDir: sb.path('store', 'evidence'), target: restored, branch: 'paddock/job1' });
    assert.match(result.branchNote, /pages/);
    assert.equal(git(restored, 'symbolic-ref', 'HEAD'), 'refs/heads/pages');
    assert.equal(git(restored, 'status', '--porcelain'), statusBefore);
  });

  it('captures names differing only in case under core.ignorecase=true, and names that look like pathspec magic', async () => {
    git(repo, 'config', 'core.ignorecase', 'true');
    write(wt, 'Foo.txt', 'upper\n');
    write(wt, 'foo.txt', 'lower\n');
    // A nested repository whose name is pathspec magic, beside an ignored one.
    for (const dir of [':(glob)n*', 'build/inner']) {
      mkdirSync(path.join(wt, dir), { recursive: true });
      git(path.join(wt, dir), 'init', '-q', '-b', 'main');
      write(wt, `${dir}/x.txt`, `${dir}\n`);
    }
    const { restored, before } = await roundTrip();
    assertSameState(treeState(restored), before);
    assert.equal(git(repo, 'show', 'refs/paddock/snapshots/job1:Foo.txt'), 'upper');
    assert.equal(git(repo, 'show', 'refs/paddock/snapshots/job1:foo.txt'), 'lower');
  });

  it('keeps a repository the agent made inside a submodule, and a submodule of a submodule, with their commits and edits', async () => {
    const deep = sb.repo({ 'deep.txt': 'deep v1\n' }, 'deep');
    const lib = sb.repo({ 'lib.txt': 'lib v1\n' }, 'lib');
    git(lib, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', deep, 'deep');
    git(lib, '-c', 'user.name=A', '-c', 'user.email=a@b.c', 'commit', '-q', '-m', 'lib has deep');
    onBaseWithSubmodule(lib);
    git(wt, '-c', 'protocol.file.allow=always', 'submodule', 'update', '--init', '--recursive', '-q');
    const inner = path.join(wt, 'vendor/lib/deep');
    write(inner, 'deep.txt', 'deep v2 by the agent\n');
    git(inner, '-c', 'user.name=A', '-c', 'user.email=a@b.c', 'commit', '-q', '-am', 'agent commit in the submodule of a submodule');
    const innerHead = git(inner, 'rev-parse', 'HEAD');
    // A repository of the agent's own, below the submodule's checkout.
    const scratch = path.join(wt, 'vendor/lib/scratch');
    git(path.join(wt, 'vendor/lib'), 'init', '-q', 'scratch');
    write(scratch, 'notes.txt', 'the agent\'s notes\n');
    const gitFiles = (rel: string) => rel === 'vendor/lib/.git' || rel === 'vendor/lib/deep/.git';
    const { restored, before } = await roundTrip({}, gitFiles);
    assertSameState(treeState(restored, gitFiles), before);
    assert.equal(git(path.join(restored, 'vendor/lib/deep'), 'rev-parse', 'HEAD'), innerHead);
    assert.equal(readFileSync(path.join(restored, 'vendor/lib/scratch/notes.txt'), 'utf8'), "the agent's notes\n");
  });

  it('captures and restores a repository whose path holds a newline', async () => {
    const odd = sb.repo({ 'a.txt': 'a\n' }, 'odd\nrepo');
    const oddWt = sb.path('odd\nwt');
    git(odd, 'worktree', 'add', '-q', '-b', 'paddock/job2', oddWt, 'main');
    write(oddWt, 'a.txt', 'changed\n');
    write(oddWt, 'untracked.txt', 'new\n');
    const before = treeState(oddWt);
    const ev = await captureEvidence({ repo: odd, worktree: oddWt, jobId: 'job2', patchPath: sb.path('store2', 'evidence', 'snapshot.patch'), baseSha: git(odd, 'rev-parse', 'main'), branch: 'paddock/job2' });
    await removeWorktree(odd, oddWt);
    const restored = sb.path('restored\nhere');
    await restoreWorktree({ repo: odd, snapshotRef: ev.snapshotRef, evidenceDir: sb.path('store2', 'evidence'), target: restored, branch: 'paddock/job2' });
    assertSameState(treeState(restored), before);
  });
});
