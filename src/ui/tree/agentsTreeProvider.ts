import * as vscode from 'vscode';
import { Disposable } from '../../core/common/lifecycle';

/** The agents view's data. Empty until agents exist: the view's welcome content shows then. */
export class AgentsTreeProvider extends Disposable implements vscode.TreeDataProvider<unknown> {
  private readonly changeEmitter = this._register(new vscode.EventEmitter<unknown>());
  readonly onDidChangeTreeData = this.changeEmitter.event;

  getTreeItem(element: unknown): vscode.TreeItem {
    return element as vscode.TreeItem;
  }

  getChildren(): unknown[] {
    return [];
  }

  refresh(): void {
    this.changeEmitter.fire(undefined);
  }
}
