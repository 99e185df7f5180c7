/**
 * The window's agents model: it shows only the agents of the workspace's
 * repositories, a window notifies only for those, and two windows (two
 * coordinator + model + notifier sets over one store, as two extension hosts
 * would have) show one notification per event between them. Also measures the
 * store reads of an idle window.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { PaddockApi } from '../../src/extension';
import { Coordinator } from '../../src/core/coordinator';
import { JobStore } from '../../src/core/store';
import type { JobRecord } from '../../src/core/store/schema';
import { AgentsModel } from '../../src/ui/model/agentsModel';
import { Notifier, ShownNotification } from '../../src/ui/notifications';
import { env, paddock, sleep, treeAgents, waitFor, waitForState } from './helpers';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const realFs = require('node:fs') as typeof import('node:fs');

function gitRepo(): string {
  const dir = realFs.mkdtempSync(path.join(os.tmpdir(), 'paddock-other-repo-'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  realFs.writeFileSync(path.join(dir, 'README.md'), 'another project\n');
  git('add', '.');
  git('-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-q', '-m', 'init');
  return realFs.realpathSync(dir);
}

async function startFailing(repo: string, title: string): Promise<JobRecord> {
  const job = (await vscode.commands.executeCommand('paddock.startAgent', {
    repo,
    title,
    command: ['bash', '-c', 'sleep 3; exit 3'],
    openTerminal: false,
  })) as JobRecord;
  assert.ok(job?.id, `started ${title}`);
  return job;
}

describe('the agents model', function () {
  this.timeout(180_000);
  let ext: PaddockApi;
  let workspace: string;
  const disposables: vscode.Disposable[] = [];

  before(async () => {
    ext = await paddock();
    workspace = env('PADDOCK_HOST_TEST_WORKSPACE');
    await ext.agents.ready();
  });

  after(() => {
    for (const d of disposables.reverse()) d.dispose();
  });

  it("shows and notifies only its repositories' agents, and two windows on one store notify once per event", async () => {
    // A second window: its own store object, coordinator (watching, not leading), model and notifier.
    const store2 = new JobStore({ home: ext.store.home });
    const coordinator2 = new Coordinator({ store: store2, workerScript: '/nonexistent/worker.js', tickMs: 0, watch: true });
    const log2 = vscode.window.createOutputChannel('Paddock test window 2', { log: true });
    const model2 = new AgentsModel(store2, coordinator2.onDidChangeJob, () => undefined);
    model2.setWorkspaceRepos(ext.agents.workspaceRepos);
    const notifier2 = new Notifier(model2, store2, coordinator2.onDidChangeCapacityBlock, log2);
    disposables.push(coordinator2, log2, model2, notifier2);
    await model2.ready();

    const shown: (ShownNotification & { window: number })[] = [];
    disposables.push(ext.notifier.onDidShow((n) => shown.push({ ...n, window: 1 })));
    disposables.push(notifier2.onDidShow((n) => shown.push({ ...n, window: 2 })));

    const other = gitRepo();
    const mine = await startFailing(workspace, 'fails in this workspace');
    const theirs = await startFailing(other, 'fails in another repository');

    for (const job of [mine, theirs]) {
      await waitFor(`agent ${job.id} to fail`, async () => (await ext.store.read(job.id)).lifecycle.state === 'failed', 60_000);
    }
    await waitFor('the notification of the failed agent', () => shown.some((n) => n.jobId === mine.id) || undefined);
    // Time for a late second toast (both models' debounce, the watcher's, the claim) to show up if it would.
    await sleep(2000);

    assert.deepEqual(shown.filter((n) => n.jobId === mine.id).map((n) => n.event), ['failed'], `one notification between two windows: ${JSON.stringify(shown)}`);
    assert.deepEqual(shown.filter((n) => n.jobId === theirs.id), [], "no window notifies for another repository's agent");

    assert.ok(ext.agents.visibleAgents().some((j) => j.id === mine.id), 'the workspace agent is in the model');
    assert.ok(!ext.agents.visibleAgents().some((j) => j.id === theirs.id), 'the other repository agent is not shown');
    assert.ok(ext.agents.get(theirs.id), 'the model knows it (same store), it just does not show it');
    const inTree = (await treeAgents(ext)).map((n) => n.job.id);
    assert.ok(inTree.includes(mine.id) && !inTree.includes(theirs.id), `tree shows ${inTree.join(', ')}`);
    assert.ok(!model2.visibleAgents().some((j) => j.id === theirs.id));
  });

  it('a Refresh whose listing was read before a change keeps the change: a new agent stays, an ended one is not shown running again', async () => {
    // A window of its own (store, watching coordinator, model), as in the test above.
    const store2 = new JobStore({ home: ext.store.home });
    const coordinator2 = new Coordinator({ store: store2, workerScript: '/nonexistent/worker.js', tickMs: 0, watch: true });
    const model2 = new AgentsModel(store2, coordinator2.onDidChangeJob, () => undefined);
    model2.setWorkspaceRepos(ext.agents.workspaceRepos);
    disposables.push(coordinator2, model2);
    await model2.ready();

    const ending = await startFailing(workspace, 'ends after the listing');
    await waitFor('the first agent running in the model', () => model2.get(ending.id)?.lifecycle.state === 'running');
    // What Refresh does: the mark, then a listing; everything below happens while it is "being read".
    const readAfter = model2.noticeMark();
    const listing = await store2.list();
    const created = await startFailing(workspace, 'created after the listing');
    await waitFor('the new agent and the end in the model', () => model2.get(created.id) !== undefined && model2.get(ending.id)?.lifecycle.state === 'failed', 30_000);

    await model2.reload({ listing, readAfter });
    assert.ok(model2.get(created.id), 'the agent created after the listing is still in the model');
    assert.equal(model2.get(ending.id)?.lifecycle.state, 'failed', 'the agent that ended after the listing is not shown as it was');
    await waitForState(ext, created.id, ['failed']);
  });

  it('an idle window reads no record on its own (measured: record reads in 30 s, all parts of the window)', async () => {
    await ext.agents.ready();
    await sleep(5000); // past activation's first reads
    const reads = { count: 0 };
    const isRecord = (p: unknown) => typeof p === 'string' && p.startsWith(ext.store.home) && p.endsWith(`${path.sep}job.json`);
    const readFileSync = realFs.readFileSync;
    const readFile = realFs.promises.readFile;
    realFs.readFileSync = ((p: never, ...rest: never[]) => {
      if (isRecord(p)) reads.count++;
      return (readFileSync as (...a: unknown[]) => unknown)(p, ...rest);
    }) as typeof realFs.readFileSync;
    realFs.promises.readFile = ((p: never, ...rest: never[]) => {
      if (isRecord(p)) reads.count++;
      return (readFile as (...a: unknown[]) => unknown)(p, ...rest);
    }) as typeof realFs.promises.readFile;
    try {
      const records = realFs.readdirSync(path.join(ext.store.home, 'jobs')).length;
      await sleep(30_000);
      const perMinute = reads.count * 2;
      console.log(`[measure] store record reads per idle minute in this window: ${perMinute} (${records} records in the store)`);
      // Left: the coordinator's own pass (every 10 s; part of every window until only the leader runs it)
      // and the watcher's 60 s safety net. The views add nothing. Before: 25 reads a minute per record.
      assert.ok(perMinute <= records * 12, `${perMinute} record reads a minute for ${records} records`);
    } finally {
      realFs.readFileSync = readFileSync;
      realFs.promises.readFile = readFile;
    }
  });
});
