/**
 * Shared plumbing for commands: resolve the agents a command acts on (clicked
 * node, multi-selection, an id passed by a notification or a test, or a quick
 * pick), and report failures as one sentence instead of a stack trace.
 */
import * as vscode from 'vscode';
import { PaddockError } from '../../core/common/errors';
import type { JobRecord } from '../../core/store/schema';
import type { PaddockServices } from '../services';
import { AgentNode } from '../tree/nodes';
import { stateInWords } from '../tree/presentation';
import { printable } from '../../core/common/printable';

export type CommandHandler = (...args: unknown[]) => unknown;

export function registerCommand(s: PaddockServices, id: string, handler: CommandHandler): vscode.Disposable {
  return vscode.commands.registerCommand(id, async (...args: unknown[]) => {
    try {
      return await handler(...args);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      s.log.error(`${id}: ${message}`);
      if (!(err instanceof PaddockError)) s.log.error(err instanceof Error && err.stack ? err.stack : message);
      void vscode.window.showErrorMessage(printable(message), 'Show Log').then((c) => c && s.log.show());
      // Rethrow so programmatic callers (tests, other extensions) see the failure too.
      throw err;
    }
  });
}

/** The jobs a command applies to: [node, selection] from the tree, a job id, or undefined (then ask). */
export async function targetJobs(
  s: PaddockServices,
  args: unknown[],
  pick: { placeHolder: string; filter: (job: JobRecord) => boolean; many?: boolean },
): Promise<JobRecord[]> {
  const [first, second] = args;
  if (typeof first === 'string') return [await s.store.read(first)];
  if (first instanceof AgentNode) {
    const selected = Array.isArray(second) ? second.filter((n): n is AgentNode => n instanceof AgentNode) : [];
    const nodes = selected.length && selected.includes(first) ? selected : [first];
    return nodes.map((n) => n.job).filter(pick.filter);
  }
  await s.tree.ready();
  const candidates = s.tree.visibleAgents().map((n) => n.job).filter(pick.filter);
  if (candidates.length === 0) {
    void vscode.window.showInformationMessage('Paddock: no agent to act on.');
    return [];
  }
  const items = candidates.map((job) => ({ label: printable(job.title), description: `${job.id} · ${stateInWords(job)}`, job }));
  if (pick.many) {
    const chosen = await vscode.window.showQuickPick(items, { placeHolder: pick.placeHolder, canPickMany: true });
    return (chosen ?? []).map((c) => c.job);
  }
  const chosen = await vscode.window.showQuickPick(items, { placeHolder: pick.placeHolder });
  return chosen ? [chosen.job] : [];
}
