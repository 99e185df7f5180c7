/**
 * Landing from the Agents view in a real extension host: Merge into Base from
 * an agent's row (the base branch gets the agent's commit, the record its
 * landing, the row its Land capabilities), and Apply to Workspace (the
 * changes show in the Source Control view's repository, uncommitted).
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { JobRecord } from '../../src/core/store/schema';
import type { PaddockApi } from '../../src/extension';
import { env, paddock, treeItemFor, waitFor, waitForState } from './helpers';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

interface GitRepository {
  rootUri: vscode.Uri;
  status(): Promise<void>;
  state: { workingTreeChanges: { uri: vscode.Uri }[]; untrackedChanges?: { uri: vscode.Uri }[] };
}

/** The built-in git extension's view of the workspace: what the Source Control view shows. */
async function scmRepository(root: string): Promise<GitRepository | undefined> {
  const ext = vscode.extensions.getExtension<{ getAPI(v: 1): { repositories: GitRepository[] } }>('vscode.git');
  if (!ext) return undefined;
  const api = (await ext.activate()).getAPI(1);
  return waitFor('the git extension to open the workspace repository', () => api.repositories.find((r) => r.rootUri.fsPath === root), 30_000);
}

describe('landing from the Agents view', function () {
  this.timeout(180_000);
  let ext: PaddockApi;
  let workspace: string;
  let startHead: string;

  before(async () => {
    ext = await paddock();
    workspace = env('PADDOCK_HOST_TEST_WORKSPACE');
    startHead = git(workspace, 'rev-parse', 'HEAD');
    const commit = 'echo landed > landed.txt; git add landed.txt; git -c user.name=t -c user.email=t@t commit -qm "agent: landed.txt"';
    await vscode.workspace.getConfiguration('paddock').update(
      'profiles',
      {
        hostland: { command: 'bash', args: ['-c', commit] },
        hostland2: { command: 'bash', args: ['-c', commit.replace(/landed/g, 'again')] },
        hostapply: { command: 'bash', args: ['-c', 'echo applied > applied.txt'] },
      },
      vscode.ConfigurationTarget.Global,
    );
  });

  after(() => {
    // Leave the shared workspace as it was for the suites after this one.
    execFileSync('git', ['reset', '-q', '--hard', startHead], { cwd: workspace });
    rmSync(path.join(workspace, 'applied.txt'), { force: true });
  });

  async function startAgent(profile: string): Promise<JobRecord> {
    const job = (await vscode.commands.executeCommand('paddock.startAgent', { repo: workspace, profile, prompt: `land via ${profile}`, base: '', openTerminal: false })) as JobRecord;
    await waitForState(ext, job.id, ['completed']);
    return job;
  }

  it('Merge into Base from the row: the base has the commit and the record its landing', async () => {
    const job = await startAgent('hostland');
    const found = await treeItemFor(ext, job.id);
    assert.ok(found);
    assert.match(String(found.item.contextValue), /^agent:completed:.*\bland\b.*\bupdate\b/);
    const tip = git(workspace, 'rev-parse', job.branch!);
    const result = (await vscode.commands.executeCommand('paddock.merge', found.node, [found.node], { strategy: 'merge', confirmed: true, cleanUp: 'never' })) as { kind: string; into: string };
    assert.equal(result.kind, 'ff', JSON.stringify(result));
    assert.equal(git(workspace, 'rev-parse', 'main'), tip, 'main has the agent commit');
    assert.ok(existsSync(path.join(workspace, 'landed.txt')), 'the checked-out base got the file');
    const record = await ext.store.read(job.id);
    assert.equal(record.landing?.kind, 'ff');
    assert.equal(record.landing?.into, 'main');
    assert.equal(record.landing?.commit, tip);
  });

  it('paddock.cleanUpAfterLanding "always": the landed agent is cleaned up and its branch deleted as safe', async () => {
    const config = vscode.workspace.getConfiguration('paddock');
    await config.update('cleanUpAfterLanding', 'always', vscode.ConfigurationTarget.Global);
    try {
      const job = await startAgent('hostland2');
      const result = (await vscode.commands.executeCommand('paddock.merge', job.id, { strategy: 'squash', confirmed: true })) as { kind: string };
      assert.equal(result.kind, 'squash', JSON.stringify(result));
      const cleaned = await waitFor('the landed agent to be cleaned up', async () => {
        const r = await ext.store.read(job.id);
        return r.cleanup?.phase === 'complete' ? r : undefined;
      }, 60_000);
      assert.match(cleaned.cleanup?.branchOutcome ?? '', /deleted/);
      assert.equal(git(workspace, 'branch', '--list', job.branch!), '', 'the squashed branch is gone');
      assert.equal(git(workspace, 'log', '-1', '--format=%s', 'main'), 'land via hostland2');
    } finally {
      await config.update('cleanUpAfterLanding', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('Apply to Workspace: the changes show in the Source Control view, uncommitted', async () => {
    const job = await startAgent('hostapply');
    const head = git(workspace, 'rev-parse', 'HEAD');
    const found = await treeItemFor(ext, job.id);
    assert.ok(found);
    const result = (await vscode.commands.executeCommand('paddock.apply', found.node, [found.node], { cleanUp: 'never' })) as { files: string[] };
    assert.deepEqual(result.files, ['applied.txt']);
    assert.equal(git(workspace, 'rev-parse', 'HEAD'), head, 'nothing committed');
    const repo = await scmRepository(workspace);
    assert.ok(repo, 'the git extension knows the workspace');
    await waitFor('applied.txt in the Source Control view', async () => {
      await repo.status();
      const changes = [...repo.state.workingTreeChanges, ...(repo.state.untrackedChanges ?? [])];
      return changes.some((c) => c.uri.fsPath === path.join(workspace, 'applied.txt'));
    }, 30_000);
    assert.equal((await ext.store.read(job.id)).landing?.kind, 'apply');
  });
});
