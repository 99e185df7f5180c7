/**
 * Restore's side of the worktree's own refs (refs/worktree, refs/bisect,
 * refs/rewritten), which lived in its private git dir and went with it: each
 * is written again in the new worktree, where a bisect stopped half-way finds
 * its good and bad commits again. Their objects were kept by the snapshot.
 * Each ref on its own: one git will not write (or one the inventory holds
 * unreadable) is said, and the others come back all the same.
 */
import type { Manifest } from './evidenceManifest';
import { firstLine, runGit } from './runGit';
import { restoreTagObject } from './refObjects';
import { printable } from '../common/printable';

export async function restoreWorktreeRefs(target: string, refs: Manifest['worktreeRefs']): Promise<string[]> {
  if (!refs || refs.length === 0) return [];
  const problems: string[] = [];
  const unreadable = refs.filter((r) => r === null).length;
  if (unreadable > 0) problems.push(`${unreadable} of the worktree's own refs could not be read from the inventory and are not back`);
  for (const ref of refs) {
    if (ref === null) continue;
    const tagProblem = await restoreTagObject(target, ref);
    if (tagProblem) {
      problems.push(`the worktree's own ref ${printable(ref.name)} is not back: ${tagProblem}`);
      continue;
    }
    // Empty old value: created, never over a ref of that name made meanwhile.
    const res = await runGit(['update-ref', '-m', 'paddock restore', '--end-of-options', ref.name, ref.sha, ''], { cwd: target, allowFailure: true });
    if (res.code !== 0) problems.push(`the worktree's own ref ${printable(ref.name)} is not back (${firstLine(res.stderr) || `exit code ${res.code}`})`);
  }
  return problems;
}
