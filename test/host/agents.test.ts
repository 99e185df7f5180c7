/**
 * The whole life of an agent through the extension's public behaviour: the
 * commands, the tree's data provider, and a real attached terminal.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as vscode from 'vscode';
import type { JobRecord } from '../../src/core/store/schema';
import type { PaddockApi } from '../../src/extension';
import { env, paddock, restoresSettings, treeItemFor, waitFor, waitForState } from './helpers';

// A small interactive program: announces itself, then echoes what it is told.
const ECHO_AGENT = 'printf "\\033[1;32magent ready\\033[0m\\n"; while IFS= read -r line; do echo "you said: $line"; done';

describe('an agent from start to cleanup', function () {
  this.timeout(180_000);
  restoresSettings(['profiles', 'stopGraceSeconds']);
  let ext: PaddockApi;
  let job: JobRecord;

  before(async () => {
    ext = await paddock();
    await vscode.workspace.getConfiguration('paddock').update(
      'profiles',
      { hosttest: { command: 'bash', args: ['-c', ECHO_AGENT] } },
      vscode.ConfigurationTarget.Global,
    );
    await vscode.workspace.getConfiguration('paddock').update('stopGraceSeconds', 2, vscode.ConfigurationTarget.Global);
  });

  it('starts through the command and shows as running in the tree', async () => {
    job = (await vscode.commands.executeCommand('paddock.startAgent', {
      repo: env('PADDOCK_HOST_TEST_WORKSPACE'),
      profile: 'hosttest',
      prompt: 'echo things back',
      base: '',
      openTerminal: false,
    })) as JobRecord;
    assert.ok(job?.id, 'the command returns the new job');
    assert.match(job.branch ?? '', /^paddock\//);
    const running = await waitForState(ext, job.id, ['running']);
    const found = await treeItemFor(ext, job.id);
    assert.ok(found);
    assert.equal(found.item.label, 'echo things back');
    assert.match(String(found.item.description), /^running · \d+s$/);
    assert.match(String(found.item.contextValue), /^agent:running:.*\battach\b.*\bstop\b/);
    assert.ok(found.item.iconPath instanceof vscode.ThemeIcon);
    // The row itself carries no tooltip: VS Code asks resolveTreeItem for it on hover (treeItemFor resolves it).
    assert.equal(ext.tree.getTreeItem(found.node).tooltip, undefined);
    assert.ok(found.item.tooltip instanceof vscode.MarkdownString);
    assert.match((found.item.tooltip as vscode.MarkdownString).value, new RegExp(`paddock/${job.id}`));
    assert.equal(running.lifecycle.state, 'running');
  });

  it('attaches a terminal that shows the screen and passes typing through', async () => {
    const terminals = (await vscode.commands.executeCommand('paddock.attach', job.id)) as vscode.Terminal[];
    assert.equal(terminals.length, 1);
    const [attached] = ext.terminals.terminalsFor(job.id);
    assert.ok(attached, 'the terminal is tracked');
    let seen = '';
    const sub = attached.pty.onDidWrite((d) => (seen += d));
    try {
      // The replayed screen (or the live stream) carries the program's greeting.
      await waitFor('the agent\'s greeting in the terminal', () => seen.includes('agent ready') || undefined);
      attached.terminal.sendText('hello from vscode', true);
      await waitFor('the agent\'s answer in the terminal', () => seen.includes('you said: hello from vscode') || undefined);
    } finally {
      sub.dispose();
    }
    // The worker saw it too: the CLI reads the same screen.
    const screen = execFileSync(process.execPath, [`${env('PADDOCK_REPO_ROOT')}/dist/cli.js`, 'screen', job.id], { encoding: 'utf8' });
    assert.match(screen, /you said: hello from vscode/);
  });

  it('closing the terminal detaches and leaves the agent running', async () => {
    const [attached] = ext.terminals.terminalsFor(job.id);
    attached.terminal.dispose();
    await waitFor('the terminal to close', () => ext.terminals.terminalsFor(job.id).length === 0 || undefined);
    const record = await ext.store.read(job.id);
    assert.equal(record.lifecycle.state, 'running');
  });

  it('stops: the agent becomes cancelled', async () => {
    await vscode.commands.executeCommand('paddock.stop', job.id, { confirmed: true });
    const stopped = await waitForState(ext, job.id, ['cancelled']);
    assert.equal(stopped.lifecycle.pid, null);
    const found = await treeItemFor(ext, job.id);
    assert.match(String(found?.item.contextValue), /^agent:cancelled:.*\bretry\b.*\bcleanup\b/);
  });

  it('cleans up: evidence first, then the worktree goes; the tree shows the evidence', async () => {
    await vscode.commands.executeCommand('paddock.cleanUp', job.id, { confirmed: true });
    const cleaned = await waitFor('cleanup to complete', async () => {
      const r = await ext.store.read(job.id);
      return r.cleanup?.phase === 'complete' ? r : undefined;
    }, 60_000);
    assert.equal(cleaned.evidence?.snapshotRef, `refs/paddock/snapshots/${job.id}`);
    const repo = env('PADDOCK_HOST_TEST_WORKSPACE');
    const sha = execFileSync('git', ['rev-parse', '--verify', cleaned.evidence!.snapshotRef!], { cwd: repo, encoding: 'utf8' }).trim();
    assert.match(sha, /^[0-9a-f]{40}$/);
    await ext.agents.refresh(job.id);
    const found = await treeItemFor(ext, job.id);
    assert.ok(found);
    assert.match(String(found.item.description), /cleaned/);
    const children = await ext.tree.getChildren(found.node);
    assert.ok(children.some((c) => c.kind === 'evidence'), 'evidence nodes under the agent');
  });
});

describe('agents from before the window', function () {
  this.timeout(60_000);

  it('an agent started from the CLI before the host started shows as running', async () => {
    const ext = await paddock();
    const id = env('PADDOCK_HOST_PRESTARTED_RUNNING');
    const job = await waitForState(ext, id, ['running', 'waiting']);
    assert.equal(job.title, 'started before the window');
  });

  it('a job whose worker was SIGKILLed shows as orphaned', async () => {
    const ext = await paddock();
    const id = env('PADDOCK_HOST_PRESTARTED_ORPHANED');
    const job = await waitForState(ext, id, ['orphaned']);
    const found = await treeItemFor(ext, job.id);
    assert.match(String(found?.item.description), /^orphaned/);
  });

  it('counts agents in the status bar', async () => {
    const ext = await paddock();
    await waitFor('the status bar to count the running agent', () => /\d+ running/.test(ext.statusText()) || undefined);
  });
});
