/**
 * Restore's side of the agent's conflicted paths (agentIndex.ts keeps them): a
 * merge, rebase or cherry-pick stopped on a conflict comes back with the same
 * stages in the index, so `git status`, `git diff`, `checkout --theirs` and the
 * operation's `--continue` see what the agent left, not HEAD's version staged.
 */
import type { ConflictStage } from './evidenceManifest';
import { encodeName } from './pathBytes';
import { firstLine, NO_HOOKS_ENV, runGit } from './runGit';
import { printable } from '../common/printable';

/** Each conflicted path's entry removed, then its stages written (update-index's third --index-info form); problems in sentences. */
export async function restoreConflictStages(target: string, stages: readonly ConflictStage[] | undefined): Promise<string[]> {
  if (!stages || stages.length === 0) return [];
  const paths = [...new Set(stages.map((s) => s.path))];
  const lines = [...paths.map((p) => `0 ${'0'.repeat(stages[0]!.sha.length)}\t${p}\0`), ...stages.map((s) => `${s.mode} ${s.sha} ${s.stage}\t${s.path}\0`)];
  // No post-index-change hook of the person's on restore's own write (restore.ts).
  const res = await runGit(['update-index', '-z', '--index-info'], { cwd: target, env: NO_HOOKS_ENV, input: encodeName(lines.join('')), allowFailure: true });
  if (res.code === 0) return [];
  return [`the conflicts in ${printable(paths[0]!)}${paths.length > 1 ? ` and ${paths.length - 1} more path(s)` : ''} are not back in the index (${firstLine(res.stderr) || `exit code ${res.code}`}); each holds HEAD's version staged`];
}
