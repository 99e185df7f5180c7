/**
 * Issue 11, case 6: cleanup on a full disk (a 32 MiB tmpfs store, as root) keeps the worktree and
 * the good evidence, and says so in one sentence; with space back, the round trip is whole.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinatorSandbox, git } from '../unit/core/coordinator/coordinatorFixture';
import { assertSameState, treeState } from '../unit/core/git/treeState';
import { sleep } from '../unit/core/worker/fixtures';
import { cli, isAlive, isRoot } from './faultKit';
import { FILLER, fillDisk, freeDisk } from '../unit/core/store/fullDisk';
import { agent, assertNoSecretInStore, cleanupOk, isWorktreeOf, KEY, restore, type Run, show } from './cleanupKit';

describe('faults: cleanup on a full disk keeps the worktree and the good evidence (issue 11, case 6)', function () {
  this.timeout(180_000);
  let sb: CoordinatorSandbox | undefined;
  let mounted = false;
  beforeEach(function () {
    if (!isRoot()) this.skip(); // mounting a tmpfs needs root
  });
  afterEach(async () => {
    if (mounted && sb) execFileSync('umount', ['-l', sb.home]);
    mounted = false;
    await sb?.dispose();
    sb = undefined;
  });

  // Found a real bug (fixed): the patch was written with `diff-tree --output`, which exits 0 on a full
  // disk; the verification caught the short patch but the person read "the evidence patch does not
  // reproduce the snapshot exactly" instead of "no space left".
  it('a patch that does not fit: stops at capturing in one sentence, worktree untouched, earlier evidence kept; space back → round trip', async () => {
    const s = new CoordinatorSandbox();
    sb = s;
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=32m,mode=0700', 'tmpfs', s.home]);
    mounted = true;
    const env = { ...s.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', ANTHROPIC_API_KEY: KEY };
    const r: Run = { run: (args) => cli(args, env, s.repo), home: s.home, repo: s.repo, root: s.root };
    const { id, worktree } = await agent(r, 'head -c 3000000 /dev/urandom > big.bin && echo e >> README.md');

    // A first attempt captures (a 4 MB patch) and stops at removing: good evidence on record.
    const holder = s.spawnOwned('sleep', ['600'], worktree);
    assert.equal(r.run(['cleanup', id, '--yes']).code, 1);
    assert.equal(show(r, id).cleanup!.stage, 'removing');
    const evidenceDir = join(s.home, 'jobs', id, 'evidence');
    const evidenceBefore = treeState(evidenceDir);
    const snapshotBefore = git(s.repo, 'rev-parse', `refs/paddock/snapshots/${id}`);

    // More work appears; the disk fills; the next attempt's patch does not fit.
    execFileSync('sh', ['-c', 'head -c 3000000 /dev/urandom > more.bin'], { cwd: worktree });
    const state = treeState(worktree);
    fillDisk(s.home);
    // Room for the record's own small writes, not for a patch of 8 MB.
    truncateSync(join(s.home, FILLER), statSync(join(s.home, FILLER)).size - 1024 * 1024);
    process.kill(-holder, 'SIGKILL');
    while (isAlive(holder)) await sleep(20);
    const full = r.run(['cleanup', id, '--yes']);
    assert.equal(full.code, 1);
    assert.equal(full.stderr.trim().split('\n').length, 1, full.stderr);
    assert.match(full.stderr, /incomplete at capturing: .*no space left/i);
    assert.equal(show(r, id).cleanup!.stage, 'capturing');
    assertSameState(treeState(worktree), state);
    assert.ok(isWorktreeOf(s.repo, worktree), 'still a registered worktree');
    assertSameState(treeState(evidenceDir), evidenceBefore);
    assert.equal(git(s.repo, 'rev-parse', `refs/paddock/snapshots/${id}`), snapshotBefore, 'the earlier snapshot is kept');

    freeDisk(s.home);
    cleanupOk(r, id);
    assertSameState(treeState(restore(r, id)), state);
    assertNoSecretInStore(s.home);
  });
});
