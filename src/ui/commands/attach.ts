/** Paddock: Attach / Attach Read-Only — a terminal on the agent's live screen. */
import * as vscode from 'vscode';
import type { PaddockServices } from '../services';
import { registerCommand, targetJobs } from './command';

const attachable = (job: { lifecycle: { state: string } }) => ['starting', 'running', 'waiting'].includes(job.lifecycle.state);

export function registerAttach(s: PaddockServices): vscode.Disposable[] {
  const attach = (readOnly: boolean) => async (...args: unknown[]) => {
    const jobs = await targetJobs(s, args, { placeHolder: 'Attach to which agent?', filter: attachable });
    return jobs.map((job) => s.terminals.attach(job.id, job.title, { readOnly }).terminal);
  };
  return [registerCommand(s, 'paddock.attach', attach(false)), registerCommand(s, 'paddock.attachReadOnly', attach(true))];
}
