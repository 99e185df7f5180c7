/**
 * Paddock: Resolve in Agent's Worktree — offered when a merge conflicts: runs
 * Update from Base in the agent's worktree, so the conflicts wait there to be
 * resolved by the person or, via Send Prompt, by the agent.
 */
import * as vscode from 'vscode';
import { canUpdate } from '../../core/operations/rules';
import type { PaddockServices } from '../services';
import { registerCommand, targetJobs } from './command';
import { optionsOf, runUpdate } from './update';

export function registerResolveInWorktree(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.resolveInWorktree', async (...args: unknown[]) => {
    const [job] = await targetJobs(s, args, { placeHolder: vscode.l10n.t('Resolve the conflicts of which agent?'), filter: canUpdate });
    if (!job) return undefined;
    return runUpdate(s, job, optionsOf(args));
  });
}
