/**
 * Whether deleting a branch can lose work: its commits that no other ref
 * reaches (other branches, remote-tracking branches, tags). Paddock's own
 * snapshot refs do not count, or every captured branch would look safe.
 */
import { failure, PaddockError } from '../common/errors';
import { checkBranchName } from './repo';
import { firstLine, runGit } from './runGit';
import { forgetWorktreeRegistration } from './worktreeRegistration';

export interface BranchSafetyOptions {
  /** More revisions that count as "elsewhere" (e.g. a base sha that is not on any ref). */
  alsoReachableFrom?: string[];
}

export interface BranchSafety {
  exists: boolean;
  /** Commits of the branch reachable from no other ref; 0 means deleting it loses nothing. */
  unmergedCommits: number;
}

const OTHER_REF_NAMESPACES = ['refs/heads/', 'refs/remotes/', 'refs/tags/'];

/**
 * One `for-each-ref` lists every other ref and the branch's own tip, and one
 * `rev-list --count --stdin` counts the tip's commits that none of them reaches:
 * two git processes (the name is checked without git when it is a plain one).
 */
export async function branchSafety(repo: string, branch: string, opts: BranchSafetyOptions = {}): Promise<BranchSafety> {
  await checkBranchName(repo, branch);
  const own = `refs/heads/${branch}`;
  // Peeled object of each ref, so annotated tags count by their commit; refs to trees/blobs are skipped.
  const refs = await runGit(
    ['for-each-ref', '--format=%(refname)%00%(objecttype)%00%(*objecttype)%00%(objectname)%00%(*objectname)', ...OTHER_REF_NAMESPACES],
    { cwd: repo },
  );
  let tip: string | undefined;
  const others: string[] = [];
  for (const line of refs.stdout.split('\n')) {
    if (!line) continue;
    const [name, type, peeledType, sha, peeledSha] = line.split('\0');
    const commit = type === 'commit' ? sha : peeledType === 'commit' ? peeledSha : undefined;
    if (name === own) tip = commit;
    else if (commit) others.push(commit);
  }
  if (!tip) return { exists: false, unmergedCommits: 0 };
  for (const rev of opts.alsoReachableFrom ?? []) {
    const res = await runGit(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`], { cwd: repo, allowFailure: true });
    if (res.code === 0) others.push(res.stdout.trim());
  }
  const input = [tip, ...others.map((sha) => `^${sha}`)].join('\n') + '\n';
  const count = await runGit(['rev-list', '--count', '--stdin'], { cwd: repo, input });
  return { exists: true, unmergedCommits: Number(count.stdout.trim()) };
}

/**
 * git refused to delete a branch because a worktree has it checked out (or is rebasing or bisecting
 * it): `at` is that worktree's folder as git named it (null when its message did not say). It
 * refuses so until that worktree moves off the branch, so trying again changes nothing.
 */
export class BranchCheckedOut extends PaddockError {
  constructor(
    message: string,
    readonly at: string | null,
  ) {
    super(message, 'failed', 'checked-out');
  }
}

// git 2.39 says "Cannot delete branch 'b' checked out at '/w'"; 2.42 on, "cannot delete branch 'b' used by worktree at '/w'".
const CHECKED_OUT = /checked out at|used by worktree/;
const CHECKED_OUT_AT = /(?:checked out|used by worktree) at '(.*)'$/m;

/**
 * Deletes a local branch. Without `force` it refuses when the branch has
 * commits no other ref reaches. A missing branch is not an error (cleanup is
 * idempotent). A branch still held by the registration of `worktree` (the
 * agent's own, whose folder is gone) is freed by forgetting that registration
 * first; held by any other worktree, it is kept: BranchCheckedOut.
 */
export async function deleteBranch(repo: string, branch: string, opts: { force: boolean; worktree?: string | null }): Promise<void> {
  if (opts.force) {
    // The caller checked safety already or the person asked: no second reachability pass.
    await checkBranchName(repo, branch);
  } else {
    const safety = await branchSafety(repo, branch);
    if (!safety.exists) return;
    if (safety.unmergedCommits > 0) {
      const n = safety.unmergedCommits;
      throw failure(`Branch ${branch} was kept: ${n} commit${n === 1 ? '' : 's'} not merged anywhere else.`, 'unmerged');
    }
  }
  let res = await runGit(['branch', '-D', '--', branch], { cwd: repo, allowFailure: true, pastSiblingAdds: true });
  // Still held by the registration of the agent's own worktree, whose folder is gone: that one is forgotten.
  // Another worktree holding it (the person's, perhaps on a drive away) keeps it, and the branch stays.
  if (res.code !== 0 && CHECKED_OUT.test(res.stderr) && opts.worktree && (await forgetWorktreeRegistration(repo, opts.worktree))) {
    res = await runGit(['branch', '-D', '--', branch], { cwd: repo, allowFailure: true, pastSiblingAdds: true });
  }
  if (res.code === 0 || /not found/.test(res.stderr)) return; // not found: already gone, cleanup is idempotent
  const message = `Could not delete branch ${branch}: ${firstLine(res.stderr)}`;
  if (!CHECKED_OUT.test(res.stderr)) throw failure(message);
  throw new BranchCheckedOut(message, CHECKED_OUT_AT.exec(res.stderr)?.[1] ?? null);
}
