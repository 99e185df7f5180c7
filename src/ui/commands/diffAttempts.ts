/**
 * Paddock: Diff Two Attempts — the changes from one attempt's tree to another's,
 * in one multi-diff editor (live worktrees as they are on disk, cleaned ones
 * from their snapshots), both sides through the read-only git content provider.
 */
import * as vscode from 'vscode';
import { fileChanges } from '../../core/attempts/attemptTree';
import type { AttemptComparison } from '../../core/attempts/compare';
import { gitUri } from '../contentProviders';
import type { PaddockServices } from '../services';
import { registerCommand } from './command';
import { targetGroup } from './groupTarget';

function name(a: AttemptComparison): string {
  return `Attempt ${a.index}${a.profile ? ` · ${a.profile}` : ''}`;
}

export function registerDiffAttempts(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.diffAttempts', async (...args: unknown[]) => {
    const group = await targetGroup(s, args, vscode.l10n.t('Diff two attempts of which group?'));
    if (!group) return undefined;
    const comparison = await s.coordinator.compare(group.id);
    const usable = comparison.attempts.filter((a) => a.tree !== null);
    if (usable.length < 2) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Fewer than two attempts of "{0}" have files to compare.', group.title));
      return undefined;
    }
    const wanted = args.slice(1).filter((a): a is string => typeof a === 'string');
    let pair = usable.filter((a) => wanted.includes(a.id));
    if (pair.length !== 2) {
      const items = usable.map((a) => ({ label: name(a), description: `${a.id} · +${a.added} −${a.removed}`, attempt: a }));
      const chosen = usable.length === 2 ? items : await vscode.window.showQuickPick(items, { canPickMany: true, placeHolder: vscode.l10n.t('Pick the two attempts to diff') });
      if (!chosen || chosen.length !== 2) return undefined;
      pair = chosen.map((c) => c.attempt);
    }
    const [left, right] = pair;
    const repo = group.members[0]?.repo ?? (await s.store.read(left.id)).repo;
    const files = await fileChanges(repo, left.tree!, right.tree!);
    if (files.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('{0} and {1} have the same files.', name(left), name(right)));
      return [];
    }
    const resources = files.map((f) => [gitUri(repo, right.tree!, f.path), gitUri(repo, left.tree!, f.path), gitUri(repo, right.tree!, f.path)]);
    await vscode.commands.executeCommand('vscode.changes', `${name(left)} ↔ ${name(right)}`, resources);
    return files.map((f) => f.path);
  });
}
