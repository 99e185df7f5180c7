import * as vscode from 'vscode';
import type { PaddockApi } from '../../src/extension';
import type { JobRecord } from '../../src/core/store/schema';
import type { AgentNode, TreeNode } from '../../src/ui/tree/nodes';

export function paddockExtension(): vscode.Extension<PaddockApi> {
  const ext = vscode.extensions.getExtension<PaddockApi>('paddock.paddock');
  if (!ext) throw new Error('Paddock extension (paddock.paddock) is not loaded in this host');
  return ext;
}

export async function paddock(): Promise<PaddockApi> {
  return paddockExtension().activate();
}

export function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the host tests through scripts/host-test.mjs`);
  return value;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls until `probe` returns a value (not undefined/false) or the time runs out. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v as T;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`);
    await sleep(100);
  }
}

/** Every agent node the view's data provider returns (through its public TreeDataProvider surface). */
export async function treeAgents(ext: PaddockApi): Promise<AgentNode[]> {
  const out: AgentNode[] = [];
  const visit = async (nodes: TreeNode[]) => {
    for (const n of nodes) {
      if (n.kind === 'agent') out.push(n);
      else if (n.kind === 'repo' || n.kind === 'group') await visit(await ext.tree.getChildren(n));
    }
  };
  await visit(await ext.tree.getChildren());
  return out;
}

/**
 * The tree item VS Code would render for an agent, found by job id, with its
 * tooltip resolved as VS Code resolves it when the person hovers the row.
 */
export async function treeItemFor(ext: PaddockApi, id: string): Promise<{ node: AgentNode; item: vscode.TreeItem } | undefined> {
  const node = (await treeAgents(ext)).find((n) => n.job.id === id);
  return node ? { node, item: ext.tree.resolveTreeItem(ext.tree.getTreeItem(node), node) } : undefined;
}

export async function waitForState(ext: PaddockApi, id: string, states: string[], timeoutMs = 30_000): Promise<JobRecord> {
  return waitFor(`agent ${id} to be ${states.join(' or ')}`, async () => {
    await ext.agents.refresh(id);
    const found = await treeItemFor(ext, id);
    return found && states.includes(found.node.job.lifecycle.state) ? found.node.job : undefined;
  }, timeoutMs);
}

/**
 * Registers hooks that put back, after the suite, the global values of the `paddock.*` settings it
 * changes (suites share one window: none may leave its settings to the next).
 */
export function restoresSettings(keys: string[]): void {
  const saved = new Map<string, unknown>();
  before(() => {
    const config = vscode.workspace.getConfiguration('paddock');
    for (const key of keys) saved.set(key, config.inspect(key)?.globalValue);
  });
  after(async () => {
    const config = vscode.workspace.getConfiguration('paddock');
    for (const key of keys) await config.update(key, saved.get(key), vscode.ConfigurationTarget.Global);
  });
}
