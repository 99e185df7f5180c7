/**
 * Where a retry runs the agent and a check runs its command: the agent's own worktree, still a git
 * worktree of its repository. A folder at that path that no longer leads there (its `.git` removed
 * by the agent or by hand, or the folder deleted and made again empty) is no place for either: git
 * run in it finds the repository of a folder above (a superproject, a dotfiles repository in the
 * home), and the agent would commit there, or see every file of its branch as deleted. Retry and
 * Run Check refuse it, and the launch of a queued retry fails on it; the link is not written again
 * behind the person's back.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { worktreeLink } from '../git/worktreeLink';
import type { JobRecord } from '../store/schema';

/** Why nothing of the agent may run in its worktree now (a clause: "its worktree … "), or null when it may. */
export async function runInWorktreeProblem(job: JobRecord): Promise<string | null> {
  const worktree = job.worktree;
  if (worktree === null) return 'it has no worktree';
  // The worker runs the agent in the record's cwd, which Paddock sets to the worktree: one naming
  // another folder (the main worktree, say) was not written by Paddock.
  if (job.cwd !== worktree) return `its record names ${job.cwd} as the folder to run in, not its worktree ${worktree}`;
  if (!existsSync(worktree)) return `its worktree ${worktree} no longer exists`;
  const link = await worktreeLink(job.repo, worktree);
  if (link === 'linked') return null;
  const dotGit = path.join(worktree, '.git');
  if (link === 'own') return `its worktree ${worktree} is a repository of its own now (${dotGit} no longer leads to ${job.repo})`;
  const how = link === 'missing' ? 'gone' : 'broken';
  return `its worktree ${worktree} is no longer a git worktree of ${job.repo} (its .git is ${how})`;
}
