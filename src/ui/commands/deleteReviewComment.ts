/** Removes an unsent review comment (sent ones stay: they are what the agent was told). */
import type * as vscode from 'vscode';
import type { PaddockServices } from '../services';
import { ReviewNote } from '../review/reviewComments';
import { registerCommand } from './command';

export function registerDeleteReviewComment(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.deleteReviewComment', async (note?: unknown) => {
    if (note instanceof ReviewNote) await s.review.remove(note);
  });
}
