/**
 * Worktree setup in a real window: with `paddock.worktree.setup` set, a new
 * agent reads "setting up" in the tree while the command runs, then running,
 * and the setup's output is in the agent's log.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { JobRecord } from '../../src/core/store/schema';
import type { PaddockApi } from '../../src/extension';
import { env, paddock, treeItemFor, waitFor, waitForState } from './helpers';

describe('worktree setup in the tree', function () {
  this.timeout(120_000);
  let ext: PaddockApi;
  let job: JobRecord | undefined;
  const config = () => vscode.workspace.getConfiguration('paddock');

  before(async () => {
    ext = await paddock();
    await config().update('profiles', { setuptest: { command: 'bash', args: ['-c', 'echo agent up; sleep 60'] } }, vscode.ConfigurationTarget.Global);
    await config().update('worktree.setup', 'sleep 3; echo SETUP-FINISHED', vscode.ConfigurationTarget.Global);
    await config().update('stopGraceSeconds', 2, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    if (job) await vscode.commands.executeCommand('paddock.stop', job.id, { confirmed: true });
    await config().update('worktree.setup', undefined, vscode.ConfigurationTarget.Global);
  });

  it('shows "setting up" while setup runs, then running; the output is in the log', async () => {
    job = (await vscode.commands.executeCommand('paddock.startAgent', {
      repo: env('PADDOCK_HOST_TEST_WORKSPACE'),
      profile: 'setuptest',
      prompt: 'set up first',
      base: '',
      openTerminal: false,
    })) as JobRecord;
    assert.ok(job?.id);
    const id = job.id;
    const settingUp = await waitFor('the tree to show "setting up"', async () => {
      const found = await treeItemFor(ext, id);
      return /^setting up/.test(String(found?.item.description)) ? found : undefined;
    });
    assert.match(String(settingUp.item.contextValue), /^agent:starting:/);
    await waitForState(ext, id, ['running']);
    await waitFor('the tree to show running', async () => {
      const found = await treeItemFor(ext, id);
      return /^running/.test(String(found?.item.description)) || undefined;
    });
    const record = await ext.store.read(id);
    assert.deepEqual(record.setup, { ports: [], state: 'done', exitCode: 0 });
    // The log is written a moment after the output (secrets are held back briefly for redaction).
    const log = await waitFor('the agent\'s output in the log', async () => {
      const text = (await ext.store.readOutput(id)).toString('utf8');
      return text.includes('agent up') ? text : undefined;
    });
    assert.match(log, /\nSETUP-FINISHED\r?\n[\s\S]*agent up/);
  });
});
