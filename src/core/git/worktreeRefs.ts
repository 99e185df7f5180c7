/**
 * Restore's side of the worktree's own refs (refs/worktree, refs/bisect,
 * refs/rewritten), which lived in its private git dir and went with it: each
 * is written again in the new worktree, where a bisect stopped half-way finds
 * its good and bad commits again. Their commits were kept by the snapshot.
 */
import type { Manifest } from './evidenceManifest';
import { firstLine, runGit } from './runGit';
import { printable } from '../common/printable';

export async function restoreWorktreeRefs(target: string, refs: Manifest['worktreeRefs']): Promise<string[]> {
  if (!refs || refs.length === 0) return [];
  const input = refs.map((r) => `create ${r.name} ${r.sha}\n`).join('');
  const res = await runGit(['update-ref', '--stdin'], { cwd: target, input, allowFailure: true });
  if (res.code === 0) return [];
  return [`the worktree's own refs (${printable(refs.map((r) => r.name).join(', '))}) are not back (${firstLine(res.stderr) || `exit code ${res.code}`})`];
}
