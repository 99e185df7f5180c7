/**
 * A file git cannot turn into its stored form must not fail the capture of
 * everything else (bug 87, a sibling of bug 43's refusals): a byte order mark
 * its working-tree-encoding forbids or lacks, and a required clean filter that
 * fails or cannot be run (git-lfs missing from the PATH of whoever cleans up)
 * each stopped every cleanup, Clean Up Anyway included. Each such file is now
 * archived as it is on disk and comes back byte for byte.
 */
import * as assert from 'node:assert/strict';
import { existsSync, rmSync, utimesSync } from 'node:fs';
import * as path from 'node:path';
import { captureEvidence, type CaptureOptions } from '../../../../src/core/git/evidence';
import { readManifest } from '../../../../src/core/git/evidenceManifest';
import { refusedPaths } from '../../../../src/core/git/snapshotIndex';
import { restoreWorktree } from '../../../../src/core/git/restore';
import { removeWorktree } from '../../../../src/core/git/worktree';
import { Sandbox, git, useGitSandbox, write } from './gitTestUtil';
import { assertSameState, treeState } from './treeState';

describe('git: capture of files git cannot convert to their stored form (bug 87)', function () {
  this.timeout(120_000);
  let sb!: Sandbox;
  let repo: string;
  let base: string;
  let wt: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'README.md': 'hello\n', 'c.txt': 'c before\n', '.gitattributes': '*.u16 working-tree-encoding=UTF-16LE text\n*.bom working-tree-encoding=UTF-16 text\n*.lfs filter=lfs2\n*.bad filter=bad\n' });
    base = git(repo, 'rev-parse', 'main');
    wt = sb.agentWorktree(repo);
  });

  const options = (): CaptureOptions => ({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: base, branch: 'paddock/job1' });

  /** `mend`: what the person does before restoring (puts the filter back on the PATH). */
  async function roundTrip(mend = () => {}): Promise<string> {
    const before = treeState(wt);
    const ev = await captureEvidence(options());
    assert.deepEqual(ev.summary.lost, [], 'every byte could be read: nothing needs consent');
    await removeWorktree(repo, wt);
    assert.equal(existsSync(wt), false);
    mend();
    const restored = sb.path('restored');
    const result = await restoreWorktree({ repo, snapshotRef: ev.snapshotRef, evidenceDir: sb.path('store', 'evidence'), target: restored, branch: 'paddock/job1' });
    assert.deepEqual(result.problems, []);
    assertSameState(treeState(restored), before);
    return ev.snapshotRef;
  }

  it('a byte order mark its working-tree-encoding forbids (UTF-16LE) or needs (UTF-16), untracked and tracked', async () => {
    write(wt, 'new.u16', Buffer.from('\ufeffnew\r\n', 'utf16le'));
    write(wt, 'no-bom.bom', Buffer.from('no mark\n', 'utf16le'));
    write(wt, 'kept.u16', Buffer.from('plain\n', 'utf16le'));
    git(wt, 'add', 'kept.u16');
    git(wt, 'commit', '-q', '-m', 'a UTF-16LE file');
    // The agent's editor saved it with a BOM: git will not store it any more.
    write(wt, 'kept.u16', Buffer.from('\ufeffedited\n', 'utf16le'));
    write(wt, 'c.txt', 'c edited\n');
    const snapshot = await roundTrip();
    // The rest is captured as usual; the file git would not take keeps its last entry, not a deletion.
    assert.equal(git(repo, 'show', `${snapshot}:c.txt`), 'c edited');
    assert.equal(git(repo, 'cat-file', '-t', `${snapshot}:kept.u16`), 'blob');
    const manifest = await readManifest(sb.path('store', 'evidence', 'inventory.json'));
    assert.equal(manifest.summary.archived.files, 3);
  });

  it('a required clean filter that fails, or whose command is not on the PATH (git-lfs missing)', async () => {
    git(repo, 'config', 'filter.bad.clean', 'false');
    git(repo, 'config', 'filter.bad.smudge', 'cat');
    git(repo, 'config', 'filter.bad.required', 'true');
    write(wt, 'a name: with colons.bad', 'the agent\'s bytes\n');
    write(wt, 'c.txt', 'c edited\n');
    const snapshot = await roundTrip();
    assert.equal(git(repo, 'show', `${snapshot}:c.txt`), 'c edited');
  });

  // Found by review: git dies at the first such file and names only it, one a run; 64 failed every capture.
  const many: { kind: string; setup: () => void; file: (i: number) => [string, string | Buffer] }[] = [
    {
      kind: 'a required clean filter whose command is not on the PATH',
      setup: () => {
        git(repo, 'config', 'filter.bad.clean', 'git-lfs-not-on-path clean -- %f');
        git(repo, 'config', 'filter.bad.smudge', 'cat');
        git(repo, 'config', 'filter.bad.required', 'true');
      },
      file: (i) => [`big/${i}.bad`, `weights ${i}\n`],
    },
    { kind: 'a byte order mark their working-tree-encoding forbids', setup: () => {}, file: (i) => [`big/${i}.u16`, Buffer.from(`\ufeffsaved ${i}\n`, 'utf16le')] },
  ];
  for (const { kind, setup, file } of many) {
    it(`70 files of ${kind}: all are left out at once, not one a run`, async () => {
      setup();
      for (let i = 0; i < 70; i++) write(wt, ...file(i));
      write(wt, 'c.txt', 'c edited\n');
      const snapshot = await roundTrip();
      assert.equal(git(repo, 'show', `${snapshot}:c.txt`), 'c edited');
      const manifest = await readManifest(sb.path('store', 'evidence', 'inventory.json'));
      assert.equal(manifest.summary.archived.files, 70);
      assert.equal(manifest.summary.unstorable, 70, 'said apart from the ignored and nested files');
    });
  }

  // git dies on the broken pipe to the filter process, naming the file or not, as the race goes.
  for (const required of [true, false]) {
    it(`a filter process that cannot start (filter.<driver>.process, as git-lfs installs it; required: ${required}), with files of it unchanged and deleted`, async () => {
      git(repo, 'config', 'filter.lfs2.clean', 'cat');
      git(repo, 'config', 'filter.lfs2.smudge', 'cat');
      write(wt, 'same.lfs', 'unchanged\n');
      write(wt, 'gone.lfs', 'deleted by the agent\n');
      // Older than the index written next, so git records it clean (not "smudged" as racy).
      const older = new Date(Date.now() - 30_000);
      utimesSync(path.join(wt, 'same.lfs'), older, older);
      git(wt, 'add', 'same.lfs', 'gone.lfs');
      git(wt, 'commit', '-q', '-m', 'filtered files');
      write(wt, 'c.txt', 'c edited\n');
      git(wt, 'add', 'c.txt'); // staged: the agent's index is kept too
      git(repo, 'config', 'filter.lfs2.process', 'no-such-filter-command filter-process');
      git(repo, 'config', 'filter.lfs2.required', String(required));
      write(wt, 'model.lfs', Buffer.from([0, 1, 2, 255, 10]));
      write(wt, 'sub/weights.lfs', 'new weights\n');
      rmSync(path.join(wt, 'gone.lfs'));
      // Every entry "racily clean" now (the index older than its files): add and write-tree read
      // unchanged same.lfs through the filter, which no look at what changed finds.
      const past = new Date(Date.now() - 60_000);
      utimesSync(path.join(repo, '.git', 'worktrees', 'wt', 'index'), past, past);
      const snapshot = await roundTrip(() => git(repo, 'config', '--unset', 'filter.lfs2.process'));
      assert.equal(git(repo, 'show', `${snapshot}:c.txt`), 'c edited');
      assert.equal(git(repo, 'ls-tree', '--name-only', snapshot, 'gone.lfs'), '', 'a deletion is captured as one');
      assert.equal(git(sb.path('restored'), 'diff', '--cached', '--name-only'), 'c.txt', 'the staged change is staged again');
    });
  }

  it("reads the paths from git's own lines, whatever they hold", () => {
    const stderr = [
      "hint: The file 'a.u16' contains a byte order mark (BOM). Please use UTF-16 as working-tree-encoding.",
      "fatal: BOM is prohibited in 'a.u16' if encoded as UTF-16LE",
      "fatal: BOM is required in 'sub/b\nc.bom' if encoded as UTF-16",
      // found by review: a name that holds the words after it
      "fatal: BOM is prohibited in 'x' if encoded as y.u16' if encoded as UTF-16LE",
      "fatal: failed to encode 'k' from q.sj' from UTF-16BE to UTF-8",
      "fatal: encoding 'j.sj' from SHIFT-JIS to UTF-8 and back is not the same",
      "error: external filter 'false' failed 1",
      "fatal: d: e.bad: clean filter 'bad' failed",
    ].join('\n');
    assert.deepEqual(refusedPaths(stderr).sort(), ['a.u16', 'd: e.bad', 'j.sj', 'sub/b\nc.bom', "x' if encoded as y.u16", "k' from q.sj"].sort());
  });
});
