/**
 * `git rebase --update-refs` stopped half-way names, in `rebase-merge/update-refs`, the other
 * branches it moves when it ends: for each, three lines — the ref, its tip when the rebase began,
 * and the commit it is to move to (the null id until the rebase reaches it). git moves each only
 * from that old tip ("Failed to update the following refs" otherwise). When the cleanup deleted one
 * (the agent's own branch, stacked under the one being rebased), restore re-creates it at that old
 * tip before the worktree is made, as operationBranch.ts does for the branch the rebase returns to —
 * else restore took the agent's branch for gone, checked it out at HEAD's commit in the middle of the
 * rebase, and `rebase --continue` committed onto it. The commits named there are kept (keptCommits.ts).
 */
import type { Manifest } from './evidenceManifest';
import { isCommitId } from './commitId';
import { printable } from '../common/printable';
import { recreateDeletedBranch } from './recreateBranch';

export const UPDATE_REFS_FILE = 'rebase-merge/update-refs';

/** The branches the file names, each with its tip when the rebase began; none when there is no such file. */
export function updateRefsBranches(files: Manifest['gitDirFiles']): { ref: string; old: string }[] {
  const file = files?.find((f) => f.path === UPDATE_REFS_FILE);
  if (!file) return [];
  const lines = Buffer.from(file.base64, 'base64').toString('utf8').split('\n');
  const out: { ref: string; old: string }[] = [];
  for (let at = 0; at + 2 < lines.length; at += 3) {
    const [ref, old] = [lines[at]!, lines[at + 1]!.trim()];
    if (ref.startsWith('refs/heads/') && isCommitId(old) && !/^0+$/.test(old)) out.push({ ref, old });
  }
  return out;
}

/**
 * At restore, before the worktree is made: each such branch that is gone, re-created at its old tip
 * when it is `deletedByCleanup` (the job's branch, which its record says the cleanup deleted; null:
 * none), else said to be gone: the person deleted it, and it stays deleted. A sentence for each.
 */
export async function restoreUpdateRefsBranches(repo: string, files: Manifest['gitDirFiles'], deletedByCleanup: string | null): Promise<string[]> {
  const notes: string[] = [];
  for (const { ref, old } of updateRefsBranches(files)) {
    const name = printable(ref.slice('refs/heads/'.length));
    const done = await recreateDeletedBranch(repo, ref.slice('refs/heads/'.length), old, deletedByCleanup, 'a branch a stopped rebase --update-refs moves');
    if (done.kind === 'there') continue;
    notes.push(
      done.kind === 'not-ours'
        ? `the branch ${name} the rebase stopped half-way (--update-refs) moves when it ends was deleted since the cleanup, not by it: it stays deleted, and finishing the rebase will not move it`
        : done.kind === 'created'
          ? `the branch ${name}, which the cleanup had deleted, is re-created at ${old.slice(0, 12)}, where the rebase stopped half-way (--update-refs) moves it from when it ends`
          : `the branch ${name} the rebase stopped half-way (--update-refs) moves when it ends could not be re-created (${done.why}); finishing it will not move it`,
    );
  }
  return notes;
}
