import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ChangedFile } from '../../core/git';
import type { JobRecord } from '../../core/store/schema';
import { gitUri } from '../contentProviders';

/** [resource, left (base), right (worktree)] of a changed file; a side is undefined when the file is absent there. */
export function diffSides(job: JobRecord, file: ChangedFile): [vscode.Uri, vscode.Uri | undefined, vscode.Uri | undefined] {
  const worktree = job.worktree!;
  const right = file.status === 'D' ? undefined : vscode.Uri.file(path.join(worktree, file.path));
  // The base from the repository itself: git run in a worktree whose link the agent cut finds no such object.
  const left = file.status === 'A' || file.status === '?' ? undefined : gitUri(job.repo, job.baseSha!, file.oldPath ?? file.path);
  return [right ?? left!, left, right];
}
