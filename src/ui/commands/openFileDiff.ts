/** Opens one changed file of an agent as a diff against the agent's base (clicked in the tree). */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { PaddockServices } from '../services';
import { FileNode } from '../tree/nodes';
import { registerCommand } from './command';
import { diffSides } from './diffSides';

export function registerOpenFileDiff(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.openFileDiff', async (node?: unknown) => {
    if (!(node instanceof FileNode)) return;
    const job = node.agent.job;
    const [, left, right] = diffSides(job, node.file);
    const title = `${path.basename(node.file.path)} (${job.base ?? 'base'} ↔ ${job.branch ?? 'agent'})`;
    const empty = vscode.Uri.from({ scheme: 'untitled', path: node.file.path });
    await vscode.commands.executeCommand('vscode.diff', left ?? empty, right ?? empty, title, { preview: true });
  });
}
