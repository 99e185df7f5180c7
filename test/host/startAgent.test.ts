/**
 * Start Agent's approvals step, driven through VS Code's own quick pick: shown
 * for a profile with an auto-approve flag ("Ask before acting" first, the
 * default), the flag reaching the real program when "Auto-approve" is chosen,
 * and the row and tooltip saying so.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { JobRecord } from '../../src/core/store/schema';
import type { PaddockApi } from '../../src/extension';
import { env, paddock, sleep, treeItemFor, waitFor, waitForState } from './helpers';

// `env APPROVED=yes sh -c …` when auto-approved: the program prints what it got.
const PROFILE = { command: 'env', args: ['sh', '-c', 'echo "approved=${APPROVED:-no}"; sleep 600'], autoApprove: ['APPROVED=yes'] };

describe('Start Agent: ask before acting, or auto-approve', function () {
  this.timeout(120_000);
  let ext: PaddockApi;
  const started: string[] = [];

  before(async () => {
    ext = await paddock();
    await vscode.workspace.getConfiguration('paddock').update('profiles', { approvetest: PROFILE }, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    for (const id of started) await vscode.commands.executeCommand('paddock.stop', id, { confirmed: true });
  });

  /** Starts through the command, answering the approvals quick pick by moving down `down` items and accepting. */
  async function startAnswering(down: number): Promise<JobRecord> {
    const result = vscode.commands.executeCommand('paddock.startAgent', {
      repo: env('PADDOCK_HOST_TEST_WORKSPACE'),
      profile: 'approvetest',
      prompt: 'show what you got',
      base: '',
      openTerminal: false,
    }) as Thenable<JobRecord>;
    await sleep(1500); // the quick pick opens
    for (let i = 0; i < down; i++) await vscode.commands.executeCommand('workbench.action.quickOpenSelectNext');
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    const job = await result;
    assert.ok(job?.id, 'the command returns the new job');
    started.push(job.id);
    return job;
  }

  async function printed(id: string): Promise<string> {
    return waitFor(`agent ${id}'s output`, async () => {
      const out = (await ext.store.readOutput(id)).toString();
      return /approved=\w+/.exec(out)?.[0];
    });
  }

  it('the first (default) choice asks before acting: no flag, no marker', async () => {
    const job = await startAnswering(0);
    assert.equal(job.autoApprove, undefined);
    assert.deepEqual(job.command, ['env', 'sh', '-c', PROFILE.args[2]]);
    assert.equal(await printed(job.id), 'approved=no');
    await waitForState(ext, job.id, ['running']);
    const found = await treeItemFor(ext, job.id);
    assert.doesNotMatch(String(found?.item.description), /auto-approve/);
  });

  it('"Auto-approve" adds the profile\'s flag; the row and tooltip say so', async () => {
    const job = await startAnswering(1);
    assert.equal(job.autoApprove, true);
    assert.deepEqual(job.command.slice(0, 2), ['env', 'APPROVED=yes']);
    assert.equal(await printed(job.id), 'approved=yes');
    await waitForState(ext, job.id, ['running']);
    const found = await treeItemFor(ext, job.id);
    assert.match(String(found?.item.description), /^running · \d+s · auto-approve$/);
    assert.match((found!.item.tooltip as vscode.MarkdownString).value, /\| Auto-approve \| on: the agent acts without asking for approval \|/);
  });
});
