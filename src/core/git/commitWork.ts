/** Commits everything uncommitted in an agent's worktree (tracked and untracked, not ignored) on its branch. */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { failure } from '../common/errors';
import { currentBranch, headCommit } from './checkout';
import { danglingGitlinks, nestedRepositoryError } from './danglingGitlinks';
import { worktreeStateCommit } from './worktreeState';
import type { ScratchLog } from './scratch';
import { firstLine, GIT_BULK_TIMEOUT_MS, runGit } from './runGit';
import { sparseAdd } from './sparseAdd';
import { flaggedEdits, restoreFlags, rewriteWithoutFlags } from './flaggedFiles';
import { assertNothingHalfDone } from './worktreeReadiness';
import { NO_AUTO_MAINTENANCE } from './scopedConfig';
import { identityHint } from './identityHint';

/**
 * The new HEAD. git's own identity and hooks apply, as for any commit the person makes. Refused
 * (nothing changed) unless `branch` is checked out there and no git operation stopped half-way:
 * `add -A` would stage conflict markers as resolved, and the commit would conclude a merge with
 * them, or land on a rebase's detached HEAD or another branch, away from the work's branch.
 * Refused too when the commit would hold a nested repository as a bare gitlink (below).
 * `log` names a scratch folder its look could not remove (bug 194).
 */
export async function commitAllWork(worktree: string, message: string, branch: string, log?: ScratchLog): Promise<string> {
  await assertNothingHalfDone(worktree, worktree);
  const current = await currentBranch(worktree);
  if (current !== branch) {
    throw failure(`${worktree} is ${current === null ? 'on a detached HEAD' : `on branch ${current}`}, not ${branch}; its uncommitted work was not committed — nothing was changed.`, 'WORKTREE_AWAY');
  }
  // What `add -A` would record, made first in a temporary index: a nested repository would be
  // committed as a bare gitlink, its files lost to the landing; refused before anything is staged.
  const [head, state] = await Promise.all([headCommit(worktree), worktreeStateCommit(worktree, 'Uncommitted work, looked at before it is committed', log)]);
  const nested = await danglingGitlinks(worktree, head, state);
  if (nested.length > 0) throw nestedRepositoryError(worktree, nested);
  const staging = await keepStagingArea(worktree);
  // `add -A` passes over edits to files flagged assume-unchanged or skip-worktree: those entries
  // are unflagged for the commit and flagged again after it, whatever it did.
  const hidden = await flaggedEdits(worktree);
  if (hidden.length > 0) await rewriteWithoutFlags(worktree, hidden);
  try {
    // Through the person's clean filters: one slow but working (a quiet wait on a service) is let run to the bound (stallMs 0).
    // --sparse: in a sparse checkout git refuses, for the whole add, a file written outside its patterns (sparseAdd.ts).
    const sparse = await sparseAdd();
    await runGit(['add', '-A', ...sparse.flag], { cwd: worktree, env: sparse.env, timeoutMs: GIT_BULK_TIMEOUT_MS, stallMs: 0 });
    const res = await runGit(['commit', '--quiet', '--file=-'], { cwd: worktree, input: message.endsWith('\n') ? message : `${message}\n`, allowFailure: true, config: NO_AUTO_MAINTENANCE });
    if (res.code !== 0) throw failure(`Could not commit the uncommitted work in ${worktree}: ${firstLine(res.stderr) || firstLine(res.stdout) || `exit code ${res.code}`}${identityHint(res.stderr)}; nothing was changed.`);
    await staging.discard();
  } catch (err) {
    await staging.putBack();
    throw err;
  } finally {
    if (hidden.length > 0) await restoreFlags(worktree, hidden);
  }
  return headCommit(worktree);
}

/**
 * A copy of the worktree's index taken before `add -A`: a commit refused (a hook, no identity, a
 * signing key missing) must not leave everything staged — what the agent had staged, and what it
 * had not, is part of its work. Put back by a rename, so the index is never half-written.
 */
async function keepStagingArea(worktree: string): Promise<{ putBack(): Promise<void>; discard(): Promise<void> }> {
  const index = path.resolve(worktree, (await runGit(['rev-parse', '--git-path', 'index'], { cwd: worktree })).stdout.trim());
  const copy = `${index}.paddock-${randomBytes(6).toString('hex')}`;
  const kept = await fs.copyFile(index, copy).then(
    () => true,
    (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return false; // no index yet: nothing was staged
      throw err;
    },
  );
  return {
    putBack: async () => {
      if (kept) await fs.rename(copy, index);
      else await fs.rm(index, { force: true });
    },
    discard: () => fs.rm(copy, { force: true }),
  };
}
