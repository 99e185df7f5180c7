/**
 * Read-only documents: a file at a commit (the left side of a diff against the
 * agent's base) and an agent's output log as plain text.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { stripTerminalControls } from '../core/common/ansi';
import { fileAtRef } from '../core/git';
import { isCommitId } from '../core/git/commitId';
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
    const { repo, ref } = gitUriQuery(uri);
    return fileAtRef(repo, ref, uri.path.slice(1));
  }
}

/**
 * The repository and object of a `paddock-git:` URI, as `gitUri` wrote them. Anyone can open such
 * a URI (a link in a document, a pasted address): what is not a full object id in an absolute
 * folder is refused, so nothing from it reaches git's command line as anything but an object name.
 */
function gitUriQuery(uri: vscode.Uri): { repo: string; ref: string } {
  let query: unknown;
  try {
    query = JSON.parse(uri.query);
  } catch {
    query = null;
  }
  const { repo, ref } = (typeof query === 'object' && query !== null ? query : {}) as Record<string, unknown>;
  if (typeof repo !== 'string' || !path.isAbsolute(repo) || typeof ref !== 'string' || !isCommitId(ref)) {
    throw new Error(vscode.l10n.t('{0} is not a file at a commit that Paddock opened: it names no repository folder and commit.', uri.toString(true).slice(0, 200)));
  }
  return { repo, ref };
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
