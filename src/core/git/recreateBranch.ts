/**
 * A branch a stopped operation needs at restore (the one a rebase or bisect returns to, one a
 * `rebase --update-refs` moves) comes back only when the job's record says its cleanup deleted it:
 * one the person deleted since stays deleted. Created only, never over a branch made meanwhile.
 */
import { firstLine, runGit } from './runGit';

export type Recreated = { kind: 'there' } | { kind: 'not-ours' } | { kind: 'created' } | { kind: 'failed'; why: string };

/** `name` re-created at `tip` in `repo` when it is gone and is `deletedByCleanup` (null: none was). */
export async function recreateDeletedBranch(repo: string, name: string, tip: string, deletedByCleanup: string | null, reason: string): Promise<Recreated> {
  const ref = `refs/heads/${name}`;
  const exists = await runGit(['rev-parse', '--verify', '--quiet', '--end-of-options', ref], { cwd: repo, allowFailure: true });
  if (exists.code === 0) return { kind: 'there' };
  if (name !== deletedByCleanup) return { kind: 'not-ours' };
  // Empty old value: only created, never over a branch made meanwhile.
  const res = await runGit(['update-ref', '-m', `paddock restore: ${reason}`, '--end-of-options', ref, tip, ''], { cwd: repo, allowFailure: true });
  return res.code === 0 ? { kind: 'created' } : { kind: 'failed', why: firstLine(res.stderr) || `exit code ${res.code}` };
}
