/**
 * The inventory is checked against the schema it is read with before it is
 * written: a capture never leaves one that restore would refuse (the cleanup
 * would otherwise remove the worktree on the strength of it).
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { captureEvidence } from '../../../../src/core/git/evidence';
import { manifestText, type Manifest } from '../../../../src/core/git/evidenceManifest';
import { PaddockError } from '../../../../src/core/common/errors';
import { git, useGitSandbox, type Sandbox } from './gitTestUtil';

describe('git: the evidence inventory', function () {
  this.timeout(60_000);
  let sb!: Sandbox;
  let manifest!: Manifest;
  useGitSandbox((fresh) => {
    sb = fresh;
  });

  beforeEach(async () => {
    const repo = sb.repo({ 'README.md': 'hello\n' });
    const wt = sb.agentWorktree(repo);
    git(wt, 'update-ref', 'refs/worktree/keep', 'HEAD');
    const ev = await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1' });
    manifest = JSON.parse(readFileSync(ev.inventory, 'utf8')) as Manifest;
  });

  it('is written as captured when it reads back', () => {
    assert.deepEqual(JSON.parse(manifestText(manifest)), manifest);
  });

  it('is refused in one sentence, never written, when restore would refuse it or read part of it as unreadable', () => {
    const refused = (broken: Manifest, where: string) =>
      assert.throws(() => manifestText(broken), (err: unknown) => err instanceof PaddockError && err.message === `The evidence inventory of ${manifest.worktree} would not read back (${where}), so it was not written.`);
    refused({ ...manifest, headSha: 'not a commit' }, 'headSha');
    refused({ ...manifest, worktreeRefs: [manifest.worktreeRefs![0]!, { name: 'refs/heads/not-its-own', sha: manifest.snapshotSha }] }, 'worktreeRefs.1');
  });
});
