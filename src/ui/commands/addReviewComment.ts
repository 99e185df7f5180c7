/** The comment box's "Add Review Comment" button: the text becomes a review comment on that line of the agent's file. */
import type * as vscode from 'vscode';
import type { PaddockServices } from '../services';
import { registerCommand } from './command';

export function registerAddReviewComment(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.addReviewComment', async (reply?: unknown) => {
    const r = reply as Partial<vscode.CommentReply> | undefined;
    if (!r?.thread || typeof r.text !== 'string') return undefined;
    return s.review.add(r.thread, r.text);
  });
}
