/**
 * Compare Attempts as a read-only markdown document (`paddock-compare:` URIs),
 * rendered by VS Code's markdown preview in the theme's colours. Its text comes
 * from the one core wording (`comparisonMarkdown`), computed when opened.
 */
import * as vscode from 'vscode';
import { comparisonMarkdown } from '../core/attempts/compareReport';
import { printable } from '../core/common/printable';
import type { Coordinator } from '../core/coordinator';

export const COMPARE_SCHEME = 'paddock-compare';

export function compareUri(groupId: string, title: string): vscode.Uri {
  return vscode.Uri.from({ scheme: COMPARE_SCHEME, path: `/${groupId}/Compare ${printable(title).replace(/[/\\]/g, '-').slice(0, 80)}.md` });
}

export class CompareContentProvider implements vscode.TextDocumentContentProvider {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly coordinator: Coordinator) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const groupId = uri.path.split('/')[1];
    return comparisonMarkdown(await this.coordinator.compare(groupId));
  }

  /** Computes the comparison again (Compare Attempts on an open document). */
  refresh(uri: vscode.Uri): void {
    this.changed.fire(uri);
  }

  dispose(): void {
    this.changed.dispose();
  }
}
