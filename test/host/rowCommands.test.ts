/**
 * The commands of an agent's row, run as its menus run them: with the row's node (and the
 * selection) as arguments. Each asserts what the person would see: the clipboard, the log
 * document with the agent's output, the multi-diff editor, the output channel.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { JobRecord } from '../../src/core/store/schema';
import type { PaddockApi } from '../../src/extension';
import type { AgentNode, UnreadableNode } from '../../src/ui/tree/nodes';
import { changedFiles } from '../../src/core/git';
import { diffSides } from '../../src/ui/commands/diffSides';
import { damageRecord } from '../unit/core/store/helpers';
import { env, paddock, treeItemFor, waitFor, waitForState } from './helpers';

const GREETING = 'row-commands-agent-says-hello';

describe("an agent row's commands", function () {
  this.timeout(120_000);
  let ext: PaddockApi;
  let job: JobRecord;

  /** The row's node as the tree hands it to a menu: fresh from the provider. */
  async function rowNode(): Promise<AgentNode> {
    await ext.agents.refresh(job.id);
    const found = await treeItemFor(ext, job.id);
    assert.ok(found, `the row of ${job.id}`);
    return found.node;
  }

  /** Runs a row command with (node, [node]), as VS Code calls a context-menu or inline action. */
  async function runOnRow<T>(command: string, ...extra: unknown[]): Promise<T> {
    const node = await rowNode();
    return vscode.commands.executeCommand<T>(command, node, [node], ...extra);
  }

  before(async () => {
    ext = await paddock();
    job = (await vscode.commands.executeCommand('paddock.startAgent', {
      repo: env('PADDOCK_HOST_TEST_WORKSPACE'),
      command: ['bash', '-c', `echo ${GREETING}; sleep 600`],
      title: 'row commands',
      openTerminal: false,
    })) as JobRecord;
    await waitForState(ext, job.id, ['running']);
    writeFileSync(path.join(job.worktree!, 'ADDED_BY_AGENT.md'), 'new\n');
    appendFileSync(path.join(job.worktree!, 'README.md'), 'changed by the agent\n');
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    if (job) await vscode.commands.executeCommand('paddock.stop', job.id, { confirmed: true });
  });

  it('Copy Branch Name puts the branch on the clipboard', async () => {
    await vscode.env.clipboard.writeText('not the branch');
    await runOnRow('paddock.copyBranch');
    assert.equal(await vscode.env.clipboard.readText(), job.branch);
    assert.match(job.branch ?? '', /^paddock\//);
  });

  it("Show Agent Log opens a log document with the agent's output", async () => {
    await waitFor('the greeting in the store output', async () => (await ext.store.readOutput(job.id)).toString().includes(GREETING) || undefined);
    const editor = await runOnRow<vscode.TextEditor>('paddock.showLog');
    assert.ok(editor, 'the command returns the editor it opened');
    assert.equal(vscode.window.activeTextEditor?.document.uri.toString(), editor.document.uri.toString());
    assert.equal(editor.document.uri.scheme, 'paddock-log');
    assert.equal(editor.document.languageId, 'log');
    assert.match(editor.document.getText(), new RegExp(GREETING));
  });

  it('Open All Changes shows every changed file in one multi-diff editor', async () => {
    await runOnRow('paddock.openChanges');
    const tabs = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs);
    // Its title counts the files: the new one and the edited README.
    const tab = await waitFor('the changes editor', () => tabs().find((t) => t.label === 'Changes of "row commands" (2 files)')).catch((err: Error) => {
      throw new Error(`${err.message}; open tabs: ${JSON.stringify(tabs().map((t) => [t.label, t.input?.constructor?.name]))}`);
    });
    assert.ok(!(tab.input instanceof vscode.TabInputText), 'a multi-diff editor, not one file');
  });

  // Open Changes' base side (diffSides) had no test: each changed file's left side must be the file as
  // the agent's base has it, read from the repository, under its name there (a renamed file's old one).
  it("Open Changes' base side is each file as the base had it, under its name there", async () => {
    const wt = job.worktree!;
    const git = (...a: string[]) => execFileSync('git', a, { cwd: wt, encoding: 'utf8' });
    const baseReadme = execFileSync('git', ['show', `${job.baseSha}:README.md`], { cwd: job.repo, encoding: 'utf8' });
    const leftText = async (uri: vscode.Uri | undefined) => (uri ? (await vscode.workspace.openTextDocument(uri)).getText() : undefined);
    const sidesOf = async () => new Map((await changedFiles(job.repo, wt, job.baseSha!)).map((f) => [f.path, diffSides(job, f)]));
    let sides = await sidesOf();
    const [, readmeLeft, readmeRight] = sides.get('README.md')!;
    assert.equal(await leftText(readmeLeft), baseReadme, 'a modified file: the base content on the left');
    assert.equal(readmeRight?.fsPath, path.join(wt, 'README.md'), "the worktree's file on the right");
    assert.equal(sides.get('ADDED_BY_AGENT.md')![1], undefined, 'an added file has no base side');
    // Renamed (staged, so git pairs the names): the left side is the base's file under its old name.
    git('mv', 'README.md', 'MOVED.md');
    try {
      sides = await sidesOf();
      const [resource, movedLeft, movedRight] = sides.get('MOVED.md')!;
      assert.equal(await leftText(movedLeft), baseReadme, 'a renamed file: the base content of its old name on the left');
      assert.equal(movedRight?.fsPath, path.join(wt, 'MOVED.md'));
      assert.equal(resource.fsPath, path.join(wt, 'MOVED.md'));
      git('rm', '-q', '-f', '--cached', 'MOVED.md');
      sides = await sidesOf();
      const [deletedResource, deletedLeft, deletedRight] = sides.get('README.md')!;
      assert.equal(deletedRight, undefined, 'a deleted file has no worktree side');
      assert.equal(await leftText(deletedLeft), baseReadme, 'a deleted file: the base content on the left');
      assert.equal(deletedResource.toString(), deletedLeft!.toString(), 'its resource is the base side');
    } finally {
      git('add', 'MOVED.md');
      git('mv', 'MOVED.md', 'README.md');
      git('reset', '-q', '--', 'README.md', 'MOVED.md');
    }
  });

  it('Show Paddock Output reveals the extension\'s log channel', async () => {
    const isPaddockOutput = (d: vscode.TextDocument) => d.uri.scheme === 'output' && /Paddock/.test(d.uri.toString());
    await runOnRow('paddock.showOutput');
    const doc = await waitFor('the Paddock output channel to be shown', () => vscode.workspace.textDocuments.find(isPaddockOutput));
    // The channel is the one the extension logs to: it holds its activation line.
    await waitFor('the activation line in the shown channel', () => /activated in [\d.]+ ms/.test(doc.getText()) || undefined);
  });

  it('Stop, then Retry on the row: the agent runs again, a new generation in the same worktree', async () => {
    // The modal's answer is given as the commands take it from a notification or a test: { confirmed: true }.
    const reports = await runOnRow<{ id: string; stopped: boolean }[]>('paddock.stop', { confirmed: true });
    assert.deepEqual(reports.map((r) => [r.id, r.stopped]), [[job.id, true]]);
    await waitForState(ext, job.id, ['cancelled']);
    const before = await ext.store.read(job.id);
    await runOnRow('paddock.retry');
    const again = await waitForState(ext, job.id, ['running']);
    assert.equal(again.lifecycle.generation, before.lifecycle.generation + 1);
    assert.equal(again.worktree, before.worktree);
    assert.ok(again.lifecycle.pid && again.lifecycle.pid !== before.lifecycle.pid, 'a new agent process');
  });

  it('an unreadable row whose worker still runs has Stop: its agent ends, its record is left as it was', async () => {
    const damaged = (await vscode.commands.executeCommand('paddock.startAgent', {
      repo: env('PADDOCK_HOST_TEST_WORKSPACE'),
      command: ['bash', '-c', 'sleep 600'],
      title: 'damaged while running',
      openTerminal: false,
    })) as JobRecord;
    const running = await waitForState(ext, damaged.id, ['running']);
    const agentPid = running.lifecycle.pid!;
    const recordFile = path.join(ext.store.home, 'jobs', damaged.id, 'job.json');
    const good = readFileSync(recordFile);
    await damageRecord(ext.store.home, damaged.id, '{ damaged');
    const row = await waitFor('the unreadable row', async () => {
      await ext.agents.refresh(damaged.id);
      return (await ext.tree.getChildren()).find((n): n is UnreadableNode => n.kind === 'unreadable' && n.jobId === damaged.id);
    });
    assert.match(String(ext.tree.getTreeItem(row).contextValue), /^unreadable:.*\bstop\b/, 'Stop is on its menus');
    const reports = await vscode.commands.executeCommand<{ id: string; stopped: boolean }[]>('paddock.stop', row, [row], { confirmed: true });
    assert.deepEqual(reports.map((r) => [r.id, r.stopped]), [[damaged.id, true]]);
    assert.throws(() => process.kill(agentPid, 0), 'the agent process is gone');
    assert.equal(readFileSync(recordFile, 'utf8'), '{ damaged', 'the record is left as it was');
    await waitFor('Stop off its menus once the worker is gone, Remove from List on them', async () => {
      await ext.agents.refresh(damaged.id);
      const now = (await ext.tree.getChildren()).find((n): n is UnreadableNode => n.kind === 'unreadable' && n.jobId === damaged.id);
      return now && /^unreadable:forget$/.test(String(ext.tree.getTreeItem(now).contextValue)) ? true : undefined;
    });
    // The suites after this one share the store: the record is mended and the agent cleaned up, as a person would.
    writeFileSync(recordFile, good);
    execFileSync(process.execPath, [`${env('PADDOCK_REPO_ROOT')}/dist/cli.js`, 'cleanup', damaged.id, '--yes'], { cwd: env('PADDOCK_HOST_TEST_WORKSPACE'), encoding: 'utf8' });
    assert.equal((await ext.store.read(damaged.id)).cleanup?.phase, 'complete');
  });

  it("an unreadable row's Remove from List keeps its whole folder in the store's kept/ and drops the row", async () => {
    const cli = `${env('PADDOCK_REPO_ROOT')}/dist/cli.js`;
    const cwd = env('PADDOCK_HOST_TEST_WORKSPACE');
    const id = execFileSync(process.execPath, [cli, 'start', '--title', 'damaged after cleanup', '--', 'bash', '-c', 'exit 0'], { cwd, encoding: 'utf8' }).trim();
    await waitForState(ext, id, ['completed']);
    await vscode.commands.executeCommand('paddock.cleanUp', id, { confirmed: true });
    await waitFor('cleanup to complete', async () => ((await ext.store.read(id)).cleanup?.phase === 'complete' ? true : undefined), 60_000);
    await damageRecord(ext.store.home, id, '{ damaged');
    const row = await waitFor('the unreadable row', async () => {
      await ext.agents.refresh(id);
      return (await ext.tree.getChildren()).find((n): n is UnreadableNode => n.kind === 'unreadable' && n.jobId === id);
    });
    assert.equal(ext.tree.getTreeItem(row).contextValue, 'unreadable:forget');
    const removed = await vscode.commands.executeCommand<string[]>('paddock.forget', row, [row], { confirmed: true });
    assert.deepEqual(removed, [id]);
    assert.equal(readFileSync(path.join(ext.store.home, 'kept', id, 'job.json'), 'utf8'), '{ damaged', 'the damaged record is kept as it was');
    assert.equal(existsSync(path.join(ext.store.home, 'jobs', id)), false);
    await waitFor('the row is gone', async () => ((await ext.tree.getChildren()).some((n) => n.kind === 'unreadable' && (n as UnreadableNode).jobId === id) ? undefined : true));
  });

  it('Refresh re-reads the store: an agent started from the CLI this moment is in the model when it returns', async () => {
    const id = execFileSync(process.execPath, [`${env('PADDOCK_REPO_ROOT')}/dist/cli.js`, 'start', '--title', 'seen by refresh', '--', 'bash', '-c', 'exit 0'], {
      cwd: env('PADDOCK_HOST_TEST_WORKSPACE'),
      encoding: 'utf8',
    }).trim();
    await vscode.commands.executeCommand('paddock.refresh');
    const known = ext.agents.get(id);
    assert.ok(known, 'the model knows the agent once Refresh returns');
    assert.equal(known.title, 'seen by refresh');
    await waitForState(ext, id, ['completed']);
  });
});
