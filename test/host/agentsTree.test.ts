/**
 * How the Agents view refreshes after a record changes: the changed row, and
 * its parent only when the row moved. A refresh from the root rebuilds every
 * row, and an inline action clicked meanwhile reached its command without its
 * row once (Retry asked "which agent?" in CI). Runs the view's provider over a
 * store of its own, fed by real record writes.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { JobStore, NewJob } from '../../src/core/store';
import { AgentsModel } from '../../src/ui/model/agentsModel';
import { AgentsTreeProvider } from '../../src/ui/tree/agentsTreeProvider';
import type { TreeNode } from '../../src/ui/tree/nodes';
import { sleep } from './helpers';

function queuedJob(title: string, repo: string): NewJob {
  return {
    title,
    repo,
    worktree: null,
    branch: null,
    base: 'main',
    baseSha: null,
    profile: 'shell',
    command: ['bash', '-c', 'true'],
    cwd: repo,
    envNames: [],
    autoApprove: false,
    settings: { stopGraceMs: 2000, waitingPattern: null, idleSeconds: null, resumeArgs: null, secretEnvNames: [], autoRestart: false, recoveryLimit: 3 },
  };
}

/** What one change of the tree asked VS Code to refresh: 'root', or the ids of the nodes. */
type Refresh = 'root' | string[];

describe('the agents tree', function () {
  this.timeout(60_000);
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0).reverse()) cleanup();
  });

  for (const repos of [['/r/one'], ['/r/one', '/r/two']]) {
    const grouped = repos.length > 1;
    it(`refreshes a row whose state changed in place, and its ${grouped ? 'repository' : 'root'} only when the row moved (${grouped ? 'grouped by repository' : 'one repository'})`, async () => {
      const home = mkdtempSync(path.join(os.tmpdir(), 'paddock-tree-store-'));
      const store = new JobStore({ home });
      const never = new vscode.EventEmitter<string>();
      const model = new AgentsModel(store, never.event, () => undefined);
      const tree = new AgentsTreeProvider(model);
      cleanups.push(() => rmSync(home, { recursive: true, force: true }), () => never.dispose(), () => model.dispose(), () => tree.dispose());
      model.setWorkspaceRepos(repos);

      const older = await store.create(queuedJob('older', '/r/one'));
      await sleep(20); // distinct creation times: rows of one rank are newest first
      const newer = await store.create(queuedJob('newer', '/r/one'));
      await model.reload();
      const rows = async (): Promise<string[]> => {
        const top = await tree.getChildren();
        const agents = grouped ? await tree.getChildren(top.find((n) => n.id === 'repo:/r/one')) : top;
        return agents.map((n) => n.id);
      };
      assert.deepEqual(await rows(), [`agent:${newer.id}`, `agent:${older.id}`], 'two queued agents, newest first');

      const fired: Refresh[] = [];
      const listening = tree.onDidChangeTreeData((e) => fired.push(e === undefined ? 'root' : (Array.isArray(e) ? e : [e]).map((n: TreeNode) => n.id)));
      cleanups.push(() => listening.dispose());

      // Cancelled ranks below queued: the newer agent moves under the older one.
      await store.transition(newer.id, 'cancelled', { detail: 'stopped before it started' });
      await model.refresh(newer.id);
      const moved: Refresh[] = grouped ? [['repo:/r/one', `agent:${newer.id}`]] : ['root'];
      assert.deepEqual(fired, moved, 'the moved row refreshes its parent');
      assert.deepEqual(await rows(), [`agent:${older.id}`, `agent:${newer.id}`]);

      // Failed ranks above both: the older agent changes state and stays first.
      fired.length = 0;
      await store.transition(older.id, 'failed', { detail: 'exit 3' });
      await model.refresh(older.id);
      assert.deepEqual(fired, [[`agent:${older.id}`]], 'a row that keeps its place refreshes alone, never from the root');
      assert.deepEqual(await rows(), [`agent:${older.id}`, `agent:${newer.id}`]);
      const node = tree.agent(older.id);
      assert.ok(node, 'the older agent has a row');
      assert.match(String(tree.getTreeItem(node).contextValue), /^agent:failed:/, 'the refreshed row shows its new state');
    });
  }
});
