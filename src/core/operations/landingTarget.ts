/**
 * Which branch an agent's work lands on: `--into`, else its base when the
 * base names a local branch (`main`, `refs/heads/main`, or `origin/main` whose
 * local `main` exists), else — for a base of `HEAD` — the branch checked out in
 * the main worktree now. Anything else (a commit, a tag) needs `--into`.
 */
import { usageError } from '../common/errors';
import { branchTip, checkBranchName, currentBranch, remoteNames } from '../git';
import type { JobRecord } from '../store/schema';

export async function landingTarget(job: JobRecord, into?: string): Promise<string> {
  if (into !== undefined) {
    await checkBranchName(job.repo, into);
    if ((await branchTip(job.repo, into)) === null) throw usageError(`There is no branch '${into}' in ${job.repo}.`);
    return into;
  }
  const base = job.base ?? 'HEAD';
  if (base === 'HEAD') {
    const branch = await currentBranch(job.repo);
    if (branch) return branch;
    throw usageError(`Agent ${job.id} started from HEAD and ${job.repo} has no branch checked out now; say which branch with --into BRANCH.`);
  }
  const plain = base.replace(/^refs\/heads\//, '');
  if ((await branchTip(job.repo, plain).catch(() => null)) !== null) return plain;
  for (const remote of await remoteNames(job.repo)) {
    const prefix = base.startsWith('refs/remotes/') ? `refs/remotes/${remote}/` : `${remote}/`;
    if (base.startsWith(prefix)) {
      const local = base.slice(prefix.length);
      if ((await branchTip(job.repo, local).catch(() => null)) !== null) return local;
    }
  }
  throw usageError(`Agent ${job.id}'s base '${base}' is not a local branch; say which branch to land on with --into BRANCH.`);
}
