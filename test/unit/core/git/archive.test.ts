import * as assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { writeArchiveTemp } from '../../../../src/core/git/archive';
import { captureEvidence } from '../../../../src/core/git/evidence';
import { restoreWorktree } from '../../../../src/core/git/restore';
import { removeWorktree } from '../../../../src/core/git/worktree';
import { Sandbox, git, useGitSandbox, write } from './gitTestUtil';
import { assertSameState, treeState } from './treeState';

describe('git/archive: the evidence archive holds exactly what was meant', function () {
  this.timeout(60_000);
  let sb!: Sandbox;
  let repo: string;
  let wt: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'README.md': 'hello\n', '.gitignore': 'ignored/\n' });
    wt = sb.agentWorktree(repo);
  });

  it("ignores the caller's TAR_OPTIONS, TAPE and POSIXLY_CORRECT (a --transform would rename what it archives)", async () => {
    write(wt, 'ignored/v.txt', 'ignored work\n');
    write(wt, 'ignored/keep.txt', 'more\n');
    const before = treeState(wt);
    process.env.TAR_OPTIONS = '--transform=s/v.txt/w.txt/ --exclude=keep.txt';
    process.env.TAPE = sb.path('tape.tar');
    process.env.POSIXLY_CORRECT = '1';
    await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1' });
    await removeWorktree(repo, wt);
    const restored = sb.path('restored');
    await restoreWorktree({ repo, snapshotRef: 'refs/paddock/snapshots/job1', evidenceDir: sb.path('store', 'evidence'), target: restored, branch: 'paddock/job1' });
    assertSameState(treeState(restored), before);
  });

  it('refuses an archive whose entries differ from the list in name or in a file size', async () => {
    write(wt, 'a.txt', 'twelve bytes');
    mkdirSync(path.join(wt, 'd'));
    const target = sb.path('out', 'archive.tar');
    await writeArchiveTemp(wt, [{ path: 'a.txt', fileSize: 12 }, { path: 'd' }], target);
    // The file grew (or shrank) between the walk and tar's read of it.
    await assert.rejects(writeArchiveTemp(wt, [{ path: 'a.txt', fileSize: 11 }], target), /does not hold what was meant: a\.txt holds 12 bytes instead of 11/);
    process.env.TAR_OPTIONS = '--transform=s/a.txt/b.txt/';
    // Without the clean environment, this archive would hold ./b.txt: the names are compared too.
    await writeArchiveTemp(wt, [{ path: 'a.txt', fileSize: 12 }], target);
  });
});
