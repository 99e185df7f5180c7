/**
 * Paddock: Send Review to Agent — the agent's unsent review comments (file and
 * line each) as one prompt: typed into a running agent, or a Retry with that
 * prompt for an ended one (the sendReview operation). From a comment thread
 * (a reply typed there is added first), the agent's row, or the palette.
 */
import { failure } from '../../core/common/errors';
import * as vscode from 'vscode';
import { printable } from '../../core/common/printable';
import { canSendReview } from '../../core/operations/rules';
import type { JobRecord } from '../../core/store/schema';
import { openTerminalOnStart } from '../config';
import type { PaddockServices } from '../services';
import { registerCommand, targetJobs } from './command';

export function registerSendReview(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.sendReview', async (...args: unknown[]) => {
    const job = await agentFor(s, args);
    if (!job) return undefined;
    const result = await s.coordinator.sendReview(job.id);
    await s.agents.refresh(job.id);
    await s.review.reload(s.agents.get(job.id) ?? job);
    const title = printable(job.title);
    if (result.how === 'retry') {
      s.log.info(`review of ${job.id}: ${result.comments.length} comment(s) as the prompt of generation ${result.generation}${result.newConversation ? ' (a new conversation: none was saved to continue)' : ''}`);
      if (openTerminalOnStart()) s.terminals.attach(job.id, job.title, { preserveFocus: true });
      const said = result.newConversation
        ? vscode.l10n.t('Retried "{0}" with {1} review comment(s) in a new conversation: it had saved none to continue.', title, result.comments.length)
        : vscode.l10n.t('Retried "{0}" with {1} review comment(s).', title, result.comments.length);
      void vscode.window.showInformationMessage(said);
    } else {
      void vscode.window.showInformationMessage(vscode.l10n.t('Sent {0} review comment(s) to "{1}".', result.comments.length, title));
    }
    return result;
  });
}

/** The agent a send applies to: the commented file's agent (a reply typed there is saved first), else the usual targets. */
async function agentFor(s: PaddockServices, args: unknown[]): Promise<JobRecord | undefined> {
  const [first] = args;
  const reply = first as Partial<vscode.CommentReply> | undefined;
  const thread = (reply?.thread ?? first) as Partial<vscode.CommentThread> | undefined;
  if (thread && thread.uri instanceof vscode.Uri) {
    const job = s.review.agentOf(thread.uri);
    if (!job) throw failure(vscode.l10n.t('This file is not in a Paddock agent\'s worktree.'));
    if (reply?.thread && typeof reply.text === 'string' && reply.text.trim()) await s.review.add(reply.thread, reply.text);
    return job;
  }
  const [job] = await targetJobs(s, args, { placeHolder: vscode.l10n.t('Send the review to which agent?'), filter: canSendReview });
  return job;
}
