/** Commits everything uncommitted in an agent's worktree (tracked and untracked, not ignored) on its branch. */
import { failure } from '../common/errors';
import { headCommit } from './checkout';
import { firstLine, GIT_BULK_TIMEOUT_MS, runGit } from './runGit';

/** The new HEAD. git's own identity and hooks apply, as for any commit the person makes. */
export async function commitAllWork(worktree: string, message: string): Promise<string> {
  await runGit(['add', '-A'], { cwd: worktree, timeoutMs: GIT_BULK_TIMEOUT_MS });
  const res = await runGit(['commit', '--quiet', '--file=-'], { cwd: worktree, input: message.endsWith('\n') ? message : `${message}\n`, allowFailure: true });
  if (res.code !== 0) throw failure(`Could not commit the uncommitted work in ${worktree}: ${firstLine(res.stderr) || firstLine(res.stdout) || `exit code ${res.code}`}.`);
  return headCommit(worktree);
}
