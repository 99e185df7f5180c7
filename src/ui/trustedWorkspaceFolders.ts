/**
 * The workspace's folders while it is trusted, as real paths (git names a repository by its real
 * path); none while it is not. Which repositories they vouch for is core's rule (`trustedWorkspaceHolds`).
 */
import * as vscode from 'vscode';
import { Disposable } from '../core/common/lifecycle';
import { realPathOrSync } from '../core/common/paths';

export class TrustedWorkspaceFolders extends Disposable {
  /**
   * Each folder's real path, resolved once and kept until the folders change: the settings are
   * read on every pump of the queue, on the extension host's event loop, and resolving blocks it.
   * So a folder that is a symbolic link pointed elsewhere while open is seen at the next change of
   * folders or window reload: the folder the person trusted is the link they opened.
   */
  private readonly realPaths = new Map<string, string>();

  constructor() {
    super();
    // A folder removed and added again may lead elsewhere now.
    this._register(vscode.workspace.onDidChangeWorkspaceFolders(() => this.realPaths.clear()));
  }

  list(): string[] {
    if (!vscode.workspace.isTrusted) return [];
    return (vscode.workspace.workspaceFolders ?? []).map((f) => this.realPath(f.uri.fsPath));
  }

  /** A folder that does not resolve is not kept: it stands as itself and is tried again next time. */
  private realPath(folder: string): string {
    const known = this.realPaths.get(folder);
    if (known !== undefined) return known;
    const resolved = realPathOrSync(folder, null);
    if (resolved === null) return folder;
    this.realPaths.set(folder, resolved);
    return resolved;
  }
}
