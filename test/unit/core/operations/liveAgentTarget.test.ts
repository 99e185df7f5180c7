/**
 * Whose worktree a folder is (`recordOfWorktree`): asked by name, both sides resolved the same way,
 * also for a worktree whose folder is gone under a parent reached through a symbolic link.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { JobStore } from '../../../../src/core/store';
import { recordOfWorktree } from '../../../../src/core/operations/liveAgentTarget';
import { createWithWorktree, type TestBed, useTestBed } from '../store/helpers';

describe('operations: recordOfWorktree', () => {
  let bed!: TestBed;
  let store!: JobStore;
  useTestBed((b, s) => {
    bed = b;
    store = s;
  });

  it("finds the record whose gone worktree lies under a linked parent, by either path to it, and never another's", async () => {
    const real = path.join(bed.home, 'real');
    const link = path.join(bed.home, 'link');
    fs.mkdirSync(path.join(real, 'repo.worktrees'), { recursive: true });
    fs.symlinkSync(real, link);
    const job = await createWithWorktree(store, { repo: path.join(link, 'repo'), cwd: path.join(link, 'repo') });
    assert.equal(job.worktree, path.join(link, 'repo.worktrees', job.id));
    assert.equal(fs.existsSync(job.worktree!), false, 'its folder is gone');
    assert.equal((await recordOfWorktree(store, path.join(real, 'repo.worktrees', job.id)))?.id, job.id, 'by the real path');
    assert.equal((await recordOfWorktree(store, job.worktree!))?.id, job.id, 'by the path it was given');
    assert.equal(await recordOfWorktree(store, job.worktree!, job.id), null, 'except itself');
    assert.equal(await recordOfWorktree(store, path.join(real, 'repo.worktrees', 'abcdef12')), null, 'a folder no record names');
  });
});
