/**
 * The removal's last look and its deletion: a worktree is moved aside first, so that a process
 * writing there by path between the last look and the deletion cannot write what is then deleted
 * unsaved; a refusal puts it back; a removal cut short is put back by the next attempt.
 */
import * as assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import * as path from 'node:path';
import { removeJobWorktree, StageFailure } from '../../../../src/core/coordinator/cleanupRemoval';
import { asideOf, bringBackAside } from '../../../../src/core/coordinator/worktreeAside';
import { captureEvidence } from '../../../../src/core/git/evidence';
import type { JobRecord } from '../../../../src/core/store/schema';
import { git, Sandbox, useGitSandbox, write } from '../git/gitTestUtil';

describe('cleanup removal: the worktree is out of every path\'s reach from its last look to its deletion', function () {
  this.timeout(60_000);
  let sb!: Sandbox;
  let repo: string;
  let wt: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'README.md': 'hello\n' });
    wt = sb.agentWorktree(repo, sb.path('repo.worktrees', 'job1'));
    write(wt, 'work.txt', 'the agent\'s work\n');
  });

  const job = () => ({ id: 'job1', repo, worktree: wt, cleanup: null, evidence: null }) as unknown as JobRecord;

  async function captured() {
    const ev = await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1' });
    return ev.stamp;
  }

  it('a write by path after the last look fails (its writer sees it), and nothing unsaved is deleted', async () => {
    const stamp = await captured();
    let lateWrite: 'written' | 'refused' | undefined;
    const note = await removeJobWorktree(job(), wt, stamp, {}, {
      afterLastLook: async () => {
        // An escaped writer's append, by the worktree's path, just after the last look said nothing changed.
        try {
          appendFileSync(path.join(wt, 'work.txt'), 'written after the last look\n');
          lateWrite = 'written';
        } catch {
          lateWrite = 'refused';
        }
      },
    });
    assert.equal(lateWrite, 'refused', 'the write reached a worktree about to be deleted');
    assert.equal(note, 'worktree removed');
    assert.equal(existsSync(wt), false);
    assert.equal(existsSync(asideOf(wt)), false, 'nothing left aside');
    assert.equal(git(repo, 'worktree', 'list', '--porcelain').includes(wt), false, 'its registration is gone');
    assert.equal(git(repo, 'show', 'refs/paddock/snapshots/job1:work.txt'), "the agent's work");
  });

  it('a change found by the last look puts the worktree back in its place, removing nothing', async () => {
    const stamp = await captured();
    write(wt, 'late.txt', 'written after the capture\n');
    await assert.rejects(removeJobWorktree(job(), wt, stamp), (e: StageFailure) => e.stage === 'removing' && /late\.txt in .* changed after it was captured/.test(e.message));
    assert.equal(readFileSync(path.join(wt, 'late.txt'), 'utf8'), 'written after the capture\n');
    assert.equal(existsSync(asideOf(wt)), false);
    assert.equal(git(wt, 'rev-parse', '--abbrev-ref', 'HEAD'), 'paddock/job1', 'still a worktree where it was');
  });

  it('a removal cut short after moving the worktree aside is put back by the next look; a place taken meanwhile is refused', async () => {
    renameSync(wt, asideOf(wt));
    await bringBackAside(wt);
    assert.equal(readFileSync(path.join(wt, 'work.txt'), 'utf8'), "the agent's work\n");
    assert.equal(existsSync(asideOf(wt)), false);

    renameSync(wt, asideOf(wt));
    mkdirSync(wt);
    write(wt, 'new.txt', 'made in its place\n');
    await assert.rejects(bringBackAside(wt), (e: StageFailure) => e.stage === 'removing' && /both were left as they are/.test(e.message));
    assert.equal(readFileSync(path.join(asideOf(wt), 'work.txt'), 'utf8'), "the agent's work\n");
    assert.equal(readFileSync(path.join(wt, 'new.txt'), 'utf8'), 'made in its place\n');
  });
});
