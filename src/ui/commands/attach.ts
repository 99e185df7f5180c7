/** Paddock: Attach — a terminal on the agent's live screen that types into it. */
import * as vscode from 'vscode';
import type { PaddockServices } from '../services';
import { canAttach } from '../../core/operations/rules';
import { registerCommand, targetJobs } from './command';

export function attachTerminals(s: PaddockServices, args: unknown[], readOnly: boolean): Promise<vscode.Terminal[]> {
  return targetJobs(s, args, { placeHolder: vscode.l10n.t('Attach to which agent?'), filter: canAttach }).then((jobs) =>
    jobs.map((job) => s.terminals.attach(job.id, job.title, { readOnly }).terminal),
  );
}

export function registerAttach(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.attach', (...args: unknown[]) => attachTerminals(s, args, false));
}
