/**
 * What the window tells the person, and the `paddock.notifications.*` settings that decide it:
 * an agent that fails or waits, a cleanup that keeps failing (the fifth failure flags it: the
 * notification, the row and the status bar say so), and capacity held by failed cleanups.
 * Each kind is turned off for one agent and on for the next; the settings are put back after.
 */
import * as assert from 'node:assert/strict';
import { ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { isTerminalState, type JobRecord } from '../../src/core/store/schema';
import type { PaddockApi } from '../../src/extension';
import type { ShownNotification } from '../../src/ui/notifications';
import { env, paddock, treeItemFor, waitFor, waitForState } from './helpers';

const SETTINGS = ['notifications.failed', 'notifications.waiting', 'notifications.cleanup', 'maxConcurrent'] as const;

describe('notifications and their settings', function () {
  this.timeout(180_000);
  let ext: PaddockApi;
  const shown: ShownNotification[] = [];
  const disposables: vscode.Disposable[] = [];
  const started: string[] = [];
  const saved = new Map<string, unknown>();
  const config = () => vscode.workspace.getConfiguration('paddock');
  const set = (key: (typeof SETTINGS)[number], value: unknown) => config().update(key, value, vscode.ConfigurationTarget.Global);

  async function start(title: string, script: string): Promise<JobRecord> {
    const job = (await vscode.commands.executeCommand('paddock.startAgent', {
      repo: env('PADDOCK_HOST_TEST_WORKSPACE'),
      command: ['bash', '-c', script],
      title,
      openTerminal: false,
    })) as JobRecord;
    assert.ok(job?.id, `started "${title}"`);
    started.push(job.id);
    return job;
  }

  const shownFor = (id: string, event?: string) => shown.filter((n) => n.jobId === id && (!event || n.event === event));

  before(async () => {
    ext = await paddock();
    await ext.agents.ready();
    for (const key of SETTINGS) saved.set(key, config().inspect(key)?.globalValue);
    disposables.push(ext.notifier.onDidShow((n) => shown.push(n)));
  });

  after(async () => {
    for (const d of disposables.splice(0)) d.dispose();
    for (const id of started) {
      if (!isTerminalState((await ext.store.read(id)).lifecycle.state)) await vscode.commands.executeCommand('paddock.stop', id, { confirmed: true });
    }
    for (const key of SETTINGS) await set(key, saved.get(key));
  });

  it('failed: off, an agent that fails is not announced; on, the next one is, with why and what to do', async () => {
    await set('notifications.failed', false);
    const quiet = await start('fails quietly', 'exit 3');
    await waitForState(ext, quiet.id, ['failed']);
    await set('notifications.failed', true);
    const loud = await start('fails aloud', 'exit 4');
    await waitForState(ext, loud.id, ['failed']);
    // The quiet agent's transition was handled before the loud one existed: one wait covers both.
    const [n] = await waitFor('the failed notification', () => shownFor(loud.id).length > 0 && shownFor(loud.id));
    assert.equal(n.event, 'failed');
    assert.match(n.message, /^Agent "fails aloud" failed \(exit 4\)/);
    assert.deepEqual(shownFor(quiet.id), [], 'notifications.failed = false: nothing shown');
  });

  it('waiting: off, an agent that asks is not announced; on, the next one is', async () => {
    const signal = `"${process.execPath}" "${env('PADDOCK_REPO_ROOT')}/dist/cli.js" signal waiting; sleep 600`;
    await set('notifications.waiting', false);
    const quiet = await start('asks quietly', signal);
    await waitForState(ext, quiet.id, ['waiting']);
    await set('notifications.waiting', true);
    const loud = await start('asks aloud', signal);
    await waitForState(ext, loud.id, ['waiting']);
    const [n] = await waitFor('the waiting notification', () => shownFor(loud.id).length > 0 && shownFor(loud.id));
    assert.deepEqual([n.event, n.message], ['waiting', 'Agent "asks aloud" is waiting for you.']);
    assert.deepEqual(shownFor(quiet.id), [], 'notifications.waiting = false: nothing shown');
  });

  describe('a cleanup that keeps failing', () => {
    let held: JobRecord;
    let holder: ChildProcess | undefined;

    after(() => {
      holder?.kill('SIGKILL');
    });

    it('after its fifth failure it needs attention: a notification, the row and the status bar say so', async () => {
      held = await start('cleanup held by a process', 'echo done; exit 0');
      await waitForState(ext, held.id, ['completed']);
      // A process outside the agent (an editor, a shell) keeps the worktree busy.
      holder = spawn('sleep', ['600'], { cwd: held.worktree!, stdio: 'ignore' });
      await vscode.commands.executeCommand('paddock.cleanUp', held.id, { confirmed: true });
      assert.equal((await ext.store.read(held.id)).cleanup?.phase, 'incomplete');
      // The automatic retries skip an attempt when nothing they look at changed: change the worktree after each failure.
      let touchedAt = 0;
      const flagged = await waitFor('five failed cleanup attempts', async () => {
        const c = (await ext.store.read(held.id)).cleanup!;
        if (c.phase === 'incomplete' && c.failures > touchedAt) {
          touchedAt = c.failures;
          writeFileSync(path.join(held.worktree!, `attempt-${c.failures}.txt`), 'still here\n');
        }
        return c.failures >= 5 ? c : undefined;
      }, 90_000);
      assert.equal(flagged.needsAttention, true, 'flagged at the fifth failure');
      assert.ok(flagged.holders.some((h) => h.pid === holder!.pid), 'the holder is named');
      const [n] = await waitFor('the needs-attention notification', () => shownFor(held.id, 'cleanup-attention').length > 0 && shownFor(held.id, 'cleanup-attention'));
      assert.match(n.message, /^Cleanup of "cleanup held by a process" needs attention: /);
      assert.equal(shownFor(held.id, 'cleanup-attention').length, 1, 'once, not once per failure');
      await waitFor('the status bar to count it', () => /\b1 needs attention\b/.test(ext.statusText()) || undefined);
      const row = await waitFor('the row to say so', async () => {
        await ext.agents.refresh(held.id);
        const found = await treeItemFor(ext, held.id);
        return found && /needs attention/.test(String(found.item.description)) ? found : undefined;
      });
      assert.match(String(row.item.description), /^completed · cleanup failed at removing · needs attention$|cleanup failed.*needs attention/);
    });

    it('capacity held by it: off, no notification; on, one that names it', async () => {
      const capacity = () => shown.filter((n) => n.event === 'capacity-blocked' && n.message.includes('"cleanup held by a process"'));
      await set('notifications.cleanup', false);
      await set('maxConcurrent', 1);
      // Refresh runs a coordinator pass, which reports capacity; the notifier decides before it returns.
      await vscode.commands.executeCommand('paddock.refresh');
      assert.deepEqual(capacity(), [], 'notifications.cleanup = false: nothing shown');
      await set('maxConcurrent', 16);
      await vscode.commands.executeCommand('paddock.refresh');
      await set('notifications.cleanup', true);
      await set('maxConcurrent', 1);
      await vscode.commands.executeCommand('paddock.refresh');
      const [n] = await waitFor('the capacity notification', () => capacity().length > 0 && capacity());
      assert.match(n.message, /^All 1 agent slots are taken, \d+ by failed cleanups: .*"cleanup held by a process" \(removing: /);
      await set('maxConcurrent', 16);
    });

    it('Retry Cleanup Now on the row finishes it once the holder is gone; Reveal Evidence Patch opens its patch', async () => {
      holder!.kill('SIGKILL');
      await waitFor('the holder to exit', () => holder!.exitCode !== null || holder!.signalCode !== null || undefined);
      const node = (await treeItemFor(ext, held.id))!.node;
      assert.match(String(ext.tree.getTreeItem(node).contextValue), /\bretryCleanup\b/);
      await vscode.commands.executeCommand('paddock.retryCleanup', node, [node]);
      const cleaned = await waitFor('the cleanup to complete', async () => {
        const r = await ext.store.read(held.id);
        return r.cleanup?.phase === 'complete' ? r : undefined;
      }, 60_000);
      assert.equal(cleaned.cleanup?.needsAttention, false);
      await waitFor('the status bar to drop the attention count', () => !/attention/.test(ext.statusText()) || undefined);
      assert.ok(cleaned.evidence?.patch, 'a patch was saved');
      await ext.agents.refresh(held.id);
      const cleanedNode = (await treeItemFor(ext, held.id))!.node;
      await vscode.commands.executeCommand('paddock.revealPatch', cleanedNode, [cleanedNode]);
      const editor = await waitFor('the patch editor', () => vscode.window.activeTextEditor?.document.uri.fsPath === cleaned.evidence!.patch && vscode.window.activeTextEditor);
      // The patch holds what the agent left: the files written to make the retries run.
      assert.match(editor.document.getText(), /attempt-1\.txt/);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    });
  });
});
