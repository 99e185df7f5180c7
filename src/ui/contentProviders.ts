/**
 * Read-only documents: a file at a commit (the left side of a diff against the
 * agent's base) and an agent's output log as plain text.
 */
import * as vscode from 'vscode';
import { stripTerminalControls } from '../core/common/ansi';
import { fileAtRef } from '../core/git';
import type { JobStore } from '../core/store';
import { printable } from '../core/common/printable';

export const GIT_SCHEME = 'paddock-git';
export const LOG_SCHEME = 'paddock-log';

export function gitUri(repo: string, ref: string, relativePath: string): vscode.Uri {
  return vscode.Uri.from({ scheme: GIT_SCHEME, path: `/${relativePath}`, query: JSON.stringify({ repo, ref }) });
}

export function logUri(jobId: string, title: string): vscode.Uri {
  return vscode.Uri.from({ scheme: LOG_SCHEME, path: `/${jobId}/${printable(title).replace(/[/\\]/g, '-')}.log` });
}

export class GitContentProvider implements vscode.TextDocumentContentProvider {
  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const { repo, ref } = JSON.parse(uri.query) as { repo: string; ref: string };
    return fileAtRef(repo, ref, uri.path.slice(1));
  }
}

export class LogContentProvider implements vscode.TextDocumentContentProvider {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly store: JobStore) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const id = uri.path.split('/')[1];
    const bytes = await this.store.readOutput(id);
    return stripTerminalControls(bytes.toString('utf8'));
  }

  refresh(uri: vscode.Uri): void {
    this.changed.fire(uri);
  }

  dispose(): void {
    this.changed.dispose();
  }
}
