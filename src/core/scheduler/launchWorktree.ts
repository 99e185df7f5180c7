/**
 * Whether the worktree a launch made still holds only what the launch put there, so undoing the
 * launch may remove it (`git worktree remove --force --force`, `branch -D`) losing nothing. A
 * worktree is on the record (and so open to anyone) from the moment git has made it: a launcher
 * suspended there may find, once continued, that its agent was failed meanwhile and a person wrote
 * or committed in it; a worker that never claimed leaves it there for the launch's whole wait.
 * Anything not provably the launch's own keeps the worktree for cleanup, which captures it first.
 */
import { existsSync } from 'node:fs';
import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { branchTip, currentBranch, headCommit, localChanges, operationInProgress } from '../git/checkout';
import { runGit } from '../git/runGit';
import { planWorktreeFiles } from '../repoConfig/worktreeFiles';
import type { JobRecord } from '../store';

/** Why the launch's worktree is not provably untouched (null: it is, and may go). */
export async function launchWorktreeTouched(job: JobRecord): Promise<string | null> {
  const { worktree, branch, baseSha, repo } = job;
  if (!worktree || !branch || !baseSha) return 'the record does not say what the launch made';
  const tip = await branchTip(repo, branch);
  if (tip !== null && tip !== baseSha) return `branch ${branch} has moved from where the launch made it`;
  // git makes the branch before the folder: a launch that died between left only the branch.
  const folder = existsSync(worktree);
  if (folder && ((await currentBranch(worktree)) !== branch || (await headCommit(worktree)) !== baseSha)) return 'its worktree has another commit checked out';
  // A commit made and then reset away still lives in a reflog: an entry at another commit than the base.
  for (const [cwd, ref] of [[repo, `refs/heads/${branch}`], ...(folder ? [[worktree, 'HEAD'] as const] : [])] as const) {
    const log = await runGit(['reflog', 'show', '--format=%H', ref, '--'], { cwd, allowFailure: true });
    if (log.stdout.split('\n').some((sha) => sha !== '' && sha !== baseSha)) return `${ref === 'HEAD' ? 'its HEAD' : `branch ${branch}`} has been at other commits since the launch made it`;
  }
  if (!folder) return null;
  const stopped = await operationInProgress(worktree);
  if (stopped) return `${stopped} is under way in it`;
  const changes = await localChanges(worktree, 'all');
  if (changes.tracked.length > 0) return `${changes.tracked.length} tracked file(s) changed in it`;
  const ignored = await runGit(['ls-files', '-z', '--others', '--ignored', '--exclude-standard'], { cwd: worktree, names: true });
  const extra = [...changes.untracked, ...ignored.stdout.split('\0').filter(Boolean)];
  if (extra.length === 0) return null;
  return notTheLaunchCopies(job, worktree, extra);
}

/** Null when every one of `paths` is a file the launch copied (same bytes as the main worktree's) or a link it made. */
async function notTheLaunchCopies(job: JobRecord, worktree: string, paths: readonly string[]): Promise<string | null> {
  const plan = await planWorktreeFiles({ repo: job.repo, copy: job.settings.worktree?.copy ?? [], link: job.settings.worktree?.link ?? [] });
  const linked = new Set(plan?.linked ?? []);
  const copied = new Set(plan?.copied ?? []);
  for (const rel of paths) {
    const at = join(worktree, rel);
    if (linked.has(rel) && (await lstat(at)).isSymbolicLink()) continue;
    if (copied.has(rel) && (await sameBytes(at, join(job.repo, rel)))) continue;
    return `${rel} in it is not a file the launch put there`;
  }
  return null;
}

async function sameBytes(a: string, b: string): Promise<boolean> {
  const [x, y] = await Promise.all([readFile(a), readFile(b)]).catch(() => [undefined, undefined]);
  return x !== undefined && y !== undefined && x.equals(y);
}
