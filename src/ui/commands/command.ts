/**
 * Shared plumbing for commands: resolve the agents a command acts on (clicked
 * node, multi-selection, an id passed by a notification or a test, the tree's
 * selection, or a quick pick), and report a failure once, as one sentence.
 */
import * as vscode from 'vscode';
import { describeError, PaddockError } from '../../core/common/errors';
import { printable } from '../../core/common/printable';
import type { JobRecord } from '../../core/store/schema';
import type { PaddockServices } from '../services';
import { AgentNode } from '../tree/nodes';
import { stateInWords } from '../tree/presentation';

export type CommandHandler = (...args: unknown[]) => unknown;

/**
 * What a failed command resolves with. It is not rethrown: VS Code would show
 * a second toast for a rejected command, and the person has already seen ours.
 * Programmatic callers (tests, other extensions) check `isCommandFailure`.
 */
export interface CommandFailure {
  readonly failed: true;
  readonly command: string;
  readonly message: string;
}

export function isCommandFailure(value: unknown): value is CommandFailure {
  return typeof value === 'object' && value !== null && (value as CommandFailure).failed === true && typeof (value as CommandFailure).message === 'string';
}

export function registerCommand(s: PaddockServices, id: string, handler: CommandHandler): vscode.Disposable {
  return vscode.commands.registerCommand(id, async (...args: unknown[]): Promise<unknown> => {
    try {
      return await handler(...args);
    } catch (err) {
      const message = printable(describeError(err));
      s.log.error(`${id}: ${message}`);
      if (!(err instanceof PaddockError) && err instanceof Error && err.stack) s.log.error(err.stack);
      void vscode.window.showErrorMessage(message, vscode.l10n.t('Show Log')).then((c) => c && s.log.show());
      return { failed: true, command: id, message } satisfies CommandFailure;
    }
  });
}

/**
 * The options object a caller (a test, a notification, another command) passed
 * among the arguments: the first plain object with one of `keys` that `skip`
 * does not rule out; `{}` when there is none.
 */
export function optionsArg<T extends object>(args: unknown[], keys: readonly string[], skip?: (o: object) => boolean): T {
  const o = args.find((a): a is object => !!a && typeof a === 'object' && !Array.isArray(a) && keys.some((k) => k in a) && !skip?.(a));
  return (o ?? {}) as T;
}

/** Whether a caller (a test, a notification, another command) passed `{ confirmed: true }`: the modal is skipped. */
export function isConfirmed(args: unknown[]): boolean {
  return args.some((a) => !!a && typeof a === 'object' && (a as { confirmed?: unknown }).confirmed === true);
}

/**
 * The jobs a command applies to: [node, selection] from the tree's context
 * menu, a job id, or (from the palette) the agents selected in the tree; only
 * with none of these does it ask.
 */
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
  const inTree = s.treeView.selection.filter((n): n is AgentNode => n instanceof AgentNode).map((n) => n.job).filter(pick.filter);
  if (inTree.length) return pick.many ? inTree : inTree.slice(0, 1);
  await s.agents.ready();
  const candidates = s.agents.visibleAgents().filter(pick.filter);
  if (candidates.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Paddock: no agent to act on.'));
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
