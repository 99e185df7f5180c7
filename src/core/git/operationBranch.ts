/**
 * A rebase or bisect stopped half-way runs with HEAD detached and names the
 * branch it returns to when it ends (`rebase-merge/head-name`,
 * `rebase-apply/head-name`, `BISECT_START`); a rebase also expects that branch
 * still at its old tip, which it moves in one step at the end ("is at X but
 * expected Y" otherwise), and `bisect reset` checks it out again. When a
 * cleanup deleted that branch (the agent's own, `--delete-branch` or merged
 * elsewhere), restore re-creates it at the tip it had at capture and leaves
 * HEAD detached, where the operation left it: not on the branch at HEAD's commit.
 */
import type { Manifest } from './evidenceManifest';
import { isCommitId } from './commitId';
import { runGit } from './runGit';
import { printable } from '../common/printable';
import { recreateDeletedBranch } from './recreateBranch';

type KeptFiles = NonNullable<Manifest['gitDirFiles']>;
export type OperationBranch = NonNullable<Manifest['operationBranch']>;

/** The files of a stopped operation that name the branch it returns to, and what each names it as. */
const NAMING_FILES: readonly { path: string; operation: string; branchOf: (text: string) => string | null }[] = [
  { path: 'rebase-merge/head-name', operation: 'rebase', branchOf: (t) => (t.startsWith('refs/heads/') ? t.slice('refs/heads/'.length) : null) },
  { path: 'rebase-apply/head-name', operation: 'rebase', branchOf: (t) => (t.startsWith('refs/heads/') ? t.slice('refs/heads/'.length) : null) },
  // A bisect begun on a detached HEAD records that commit instead of a branch.
  { path: 'BISECT_START', operation: 'bisect', branchOf: (t) => (t !== '' && !isCommitId(t) ? t.replace(/^refs\/heads\//, '') : null) },
];

/** The branch a stopped rebase or bisect among the kept files returns to; null when none names one. */
export function operationBranchName(files: KeptFiles | undefined): { name: string; operation: string } | null {
  for (const naming of NAMING_FILES) {
    const file = files?.find((f) => f.path === naming.path);
    if (!file) continue;
    const name = naming.branchOf(Buffer.from(file.base64, 'base64').toString('utf8').trim());
    if (name) return { name, operation: naming.operation };
  }
  return null;
}

/** At capture: that branch and its tip then (the cleanup may delete it after); null when none, or it has no commit. */
export async function captureOperationBranch(worktree: string, files: KeptFiles | undefined): Promise<OperationBranch | null> {
  const named = operationBranchName(files);
  if (!named) return null;
  const res = await runGit(['rev-parse', '--verify', '--quiet', '--end-of-options', `refs/heads/${named.name}^{commit}`], { cwd: worktree, allowFailure: true });
  const tip = res.stdout.trim();
  return res.code === 0 && isCommitId(tip) ? { name: named.name, tip } : null;
}

/**
 * At restore, before the worktree is made: the branch re-created at its tip when it is gone and the
 * job's record says its cleanup deleted it, `deletedByCleanup` (so the
 * job's branch is then no longer "gone", and HEAD stays detached). A sentence saying so, or why not;
 * null when the branch is there.
 */
export async function restoreOperationBranch(repo: string, files: KeptFiles | undefined, recorded: OperationBranch | undefined, deletedByCleanup: string | null): Promise<string | null> {
  const named = operationBranchName(files);
  if (!named || !recorded || recorded.name !== named.name) return null;
  const done = await recreateDeletedBranch(repo, recorded.name, recorded.tip, deletedByCleanup, 'the branch a stopped operation returns to');
  if (done.kind === 'there') return null;
  if (done.kind === 'not-ours') {
    return `the branch ${printable(recorded.name)} the ${named.operation} stopped half-way returns to was deleted since the cleanup, not by it: it stays deleted, and finishing the ${named.operation} there will fail`;
  }
  if (done.kind === 'failed') {
    return `the branch ${printable(recorded.name)} the ${named.operation} stopped half-way returns to could not be re-created (${done.why}); finishing it there will fail`;
  }
  return `the branch ${printable(recorded.name)}, which the cleanup had deleted, is re-created at ${recorded.tip.slice(0, 12)}, where the ${named.operation} stopped half-way expects it; HEAD is detached, as the agent left it`;
}
