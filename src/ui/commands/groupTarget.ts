/**
 * The group of attempts a group command acts on: the clicked group node, an
 * attempt (its group), a group id passed by a test or another command, the
 * tree's selection, or — from the palette — a quick pick of the visible groups.
 */
import * as vscode from 'vscode';
import { printable } from '../../core/common/printable';
import type { JobRecord } from '../../core/store/schema';
import type { PaddockServices } from '../services';
import { AgentNode, GroupNode } from '../tree/nodes';

export interface GroupTarget {
  id: string;
  title: string;
  members: JobRecord[];
}

function targetOf(s: PaddockServices, groupId: string): GroupTarget | undefined {
  const members = s.agents
    .visibleAgents()
    .filter((j) => j.group?.id === groupId)
    .sort((a, b) => a.group!.index - b.group!.index);
  return members.length ? { id: groupId, title: members[0].group!.title, members } : undefined;
}

export async function targetGroup(s: PaddockServices, args: unknown[], placeHolder: string): Promise<GroupTarget | undefined> {
  await s.agents.ready();
  const [first] = args;
  if (typeof first === 'string') return targetOf(s, first) ?? { id: first, title: first, members: [] };
  const picked = first ?? s.treeView.selection[0];
  if (picked instanceof GroupNode) return targetOf(s, picked.groupId);
  if (picked instanceof AgentNode && picked.job.group) return targetOf(s, picked.job.group.id);
  const ids = [...new Set(s.agents.visibleAgents().flatMap((j) => (j.group ? [j.group.id] : [])))];
  const groups = ids.map((id) => targetOf(s, id)!).filter(Boolean);
  if (groups.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Paddock: no group of attempts to act on. Start Agent with more than one attempt makes one.'));
    return undefined;
  }
  if (groups.length === 1) return groups[0];
  const chosen = await vscode.window.showQuickPick(
    groups.map((g) => ({ label: printable(g.title), description: vscode.l10n.t('{0} attempts · {1}', g.members.length, g.id), group: g })),
    { placeHolder },
  );
  return chosen?.group;
}
