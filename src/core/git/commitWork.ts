/** Commits everything uncommitted in an agent's worktree (tracked and untracked, not ignored) on its branch. */
import { failure } from '../common/errors';
import { headCommit } from './checkout';
import { firstLine, GIT_BULK_TIMEOUT_MS, runGit } from './runGit';
import { flaggedEdits, restoreFlags, rewriteWithoutFlags } from './flaggedFiles';

/** The new HEAD. git's own identity and hooks apply, as for any commit the person makes. */
export async function commitAllWork(worktree: string, message: string): Promise<string> {
  // `add -A` passes over edits to files flagged assume-unchanged or skip-worktree: those entries
  // are unflagged for the commit and flagged again after it, whatever it did.
  const hidden = await flaggedEdits(worktree);
  if (hidden.length > 0) await rewriteWithoutFlags(worktree, hidden);
  try {
    await runGit(['add', '-A'], { cwd: worktree, timeoutMs: GIT_BULK_TIMEOUT_MS });
    const res = await runGit(['commit', '--quiet', '--file=-'], { cwd: worktree, input: message.endsWith('\n') ? message : `${message}\n`, allowFailure: true });
    if (res.code !== 0) throw failure(`Could not commit the uncommitted work in ${worktree}: ${firstLine(res.stderr) || firstLine(res.stdout) || `exit code ${res.code}`}.`);
  } finally {
    if (hidden.length > 0) await restoreFlags(worktree, hidden);
  }
  return headCommit(worktree);
}
