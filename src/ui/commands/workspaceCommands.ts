/**
 * Commands about an agent's files: open its worktree, its changes (one file or
 * all in a multi-diff), copy its branch, reveal the evidence patch.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { changedFiles } from '../../core/git';
import type { JobRecord } from '../../core/store/schema';
import { gitUri } from '../contentProviders';
import type { PaddockServices } from '../services';
import { FileNode } from '../tree/nodes';
import { registerCommand, targetJobs } from './command';

function diffSides(job: JobRecord, file: { status: string; path: string; oldPath?: string }): [vscode.Uri, vscode.Uri | undefined, vscode.Uri | undefined] {
  const worktree = job.worktree!;
  const right = file.status === 'D' ? undefined : vscode.Uri.file(path.join(worktree, file.path));
  const left = file.status === 'A' || file.status === '?' ? undefined : gitUri(worktree, job.baseSha!, file.oldPath ?? file.path);
  return [right ?? left!, left, right];
}

export function registerWorkspaceCommands(s: PaddockServices): vscode.Disposable[] {
  const withWorktree = (j: JobRecord) => Boolean(j.worktree) && j.cleanup?.phase !== 'complete';
  return [
    registerCommand(s, 'paddock.openFileDiff', async (node?: unknown) => {
      if (!(node instanceof FileNode)) return;
      const job = node.agent.job;
      const [, left, right] = diffSides(job, node.file);
      const title = `${path.basename(node.file.path)} (${job.base ?? 'base'} ↔ ${job.branch ?? 'agent'})`;
      const empty = vscode.Uri.from({ scheme: 'untitled', path: node.file.path });
      await vscode.commands.executeCommand('vscode.diff', left ?? empty, right ?? empty, title, { preview: true });
    }),
    registerCommand(s, 'paddock.openChanges', async (...args: unknown[]) => {
      const [job] = await targetJobs(s, args, { placeHolder: 'Open the changes of which agent?', filter: withWorktree });
      if (!job?.worktree || !job.baseSha) return;
      const files = await changedFiles(job.worktree, job.baseSha);
      if (files.length === 0) {
        void vscode.window.showInformationMessage(`"${job.title}" has no changes against ${job.base ?? 'its base'}.`);
        return;
      }
      await vscode.commands.executeCommand('vscode.changes', `Changes of "${job.title}"`, files.map((f) => diffSides(job, f)));
    }),
    registerCommand(s, 'paddock.openWorktree', async (...args: unknown[]) => {
      const [job] = await targetJobs(s, args, { placeHolder: 'Open the worktree of which agent?', filter: withWorktree });
      if (!job?.worktree) return;
      await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(job.worktree), { forceNewWindow: true });
    }),
    registerCommand(s, 'paddock.copyBranch', async (...args: unknown[]) => {
      const [job] = await targetJobs(s, args, { placeHolder: 'Copy the branch of which agent?', filter: (j) => Boolean(j.branch) });
      if (!job?.branch) return;
      await vscode.env.clipboard.writeText(job.branch);
      vscode.window.setStatusBarMessage(`Copied ${job.branch}`, 3000);
    }),
    registerCommand(s, 'paddock.revealPatch', async (...args: unknown[]) => {
      const [job] = await targetJobs(s, args, { placeHolder: 'Show the patch of which agent?', filter: (j) => Boolean(j.evidence?.patch) });
      if (!job?.evidence?.patch) return;
      await vscode.window.showTextDocument(vscode.Uri.file(job.evidence.patch), { preview: true });
    }),
  ];
}
