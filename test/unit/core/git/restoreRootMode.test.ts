/**
 * Bug 159: the walk lists what is in the worktree, not the worktree folder itself, so its own
 * mode was never kept: an agent's worktree made 0700 (or 0711) came back 0755, readable by all.
 */
import * as assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { captureEvidence } from '../../../../src/core/git/evidence';
import { restoreWorktree, type RestoreResult } from '../../../../src/core/git/restore';
import { removeWorktree } from '../../../../src/core/git/worktree';
import { Sandbox, git, useGitSandbox, write } from './gitTestUtil';

describe("git: restore gives the worktree folder its own mode back", function () {
  this.timeout(60_000);
  let sb!: Sandbox;
  let repo: string;
  let wt: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'README.md': 'hello\n', '.gitignore': '.env\n' });
    wt = sb.agentWorktree(repo);
  });

  const evidence = () => sb.path('store', 'evidence');
  const modeOf = (dir: string) => statSync(dir).mode & 0o7777;

  async function captureAndRemove(): Promise<void> {
    await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: path.join(evidence(), 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1' });
    await removeWorktree(repo, wt);
  }

  const restore = (target: string): Promise<RestoreResult> =>
    restoreWorktree({ repo, snapshotRef: 'refs/paddock/snapshots/job1', evidenceDir: evidence(), target, branch: 'paddock/job1' });

  for (const mode of [0o700, 0o711, 0o750]) {
    it(`a worktree folder made ${mode.toString(8)} comes back ${mode.toString(8)}, at its path and elsewhere`, async () => {
      write(wt, '.env', 'SECRET=1\n');
      chmodSync(wt, mode);
      await captureAndRemove();
      const atPath = await restore(wt);
      assert.equal(modeOf(wt), mode);
      assert.deepEqual(atPath.problems, []);
      assert.equal(readFileSync(path.join(wt, '.env'), 'utf8'), 'SECRET=1\n');
      await removeWorktree(repo, wt);
      const elsewhere = await restore(sb.path('elsewhere'));
      assert.equal(modeOf(elsewhere.path), mode);
    });
  }

  it('an empty folder given with --to, which git makes again in its place, gets the mode too', async () => {
    chmodSync(wt, 0o711);
    await captureAndRemove();
    const given = sb.path('given');
    mkdirSync(given);
    const result = await restore(given);
    assert.equal(modeOf(given), 0o711);
    assert.deepEqual(result.problems, []);
  });

  it('evidence from before the mode was recorded restores as before', async () => {
    chmodSync(wt, 0o700);
    await captureAndRemove();
    const inventory = path.join(evidence(), 'inventory.json');
    const manifest = JSON.parse(readFileSync(inventory, 'utf8')) as Record<string, unknown>;
    assert.equal(manifest.rootMode, 0o700);
    delete manifest.rootMode;
    writeFileSync(inventory, JSON.stringify(manifest));
    const result = await restore(sb.path('older'));
    assert.equal(modeOf(result.path), 0o755 & ~process.umask());
    assert.deepEqual(result.problems, []);
  });

  // Bug 159's review: the mode was set last, so the files (.env, keys) were written into the 0755 folder git made.
  it('a private worktree folder is never open to others while restore writes into it', async () => {
    write(wt, '.env', 'SECRET=1\n');
    for (let i = 0; i < 20; i++) write(wt, `keys/k${i}.pem`, `key ${i}\n`);
    chmodSync(wt, 0o700);
    await captureAndRemove();
    const target = sb.path('elsewhere');
    const seen = new Set<number>();
    // The restore awaits git processes and file writes: this runs between them, as another user could look.
    const look = setInterval(() => {
      try {
        // Once a file of the agent's is in it (git's own `.git` file comes first, with the folder).
        if (readdirSync(target).some((name) => name !== '.git')) seen.add(modeOf(target));
      } catch {
        // not made yet, or already gone
      }
    }, 1);
    try {
      await restore(target);
    } finally {
      clearInterval(look);
    }
    assert.equal(readFileSync(path.join(target, '.env'), 'utf8'), 'SECRET=1\n');
    assert.ok(seen.size > 0, 'the folder was looked at while its files were written');
    assert.deepEqual([...seen].filter((m) => (m & 0o077) !== 0).map((m) => m.toString(8)), []);
  });
});
