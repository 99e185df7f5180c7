/**
 * The per-agent figures in the real window: with the Agents view visible, an
 * agent holding 60 MB shows its CPU, memory, disk and running time in its
 * tooltip (and, with paddock.tree.showUsage, in its description), and the
 * status bar's tooltip totals them.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { JobRecord } from '../../src/core/store/schema';
import type { PaddockApi } from '../../src/extension';
import { env, paddock, treeItemFor, waitFor, waitForState } from './helpers';

const HOLD_60_MB = 'const b = Buffer.alloc(60 * 1024 * 1024); for (let i = 0; i < b.length; i += 4096) b[i] = 1; globalThis.b = b; setInterval(() => {}, 1000);';

describe('per-agent figures in the window', function () {
  this.timeout(120_000);
  let ext: PaddockApi;
  let job: JobRecord;

  before(async () => {
    ext = await paddock();
    await vscode.workspace.getConfiguration('paddock').update(
      'profiles',
      { usagetest: { command: process.execPath, args: ['-e', HOLD_60_MB] } },
      vscode.ConfigurationTarget.Global,
    );
  });

  after(async () => {
    await vscode.workspace.getConfiguration('paddock').update('tree.showUsage', undefined, vscode.ConfigurationTarget.Global);
    if (job) await vscode.commands.executeCommand('paddock.stop', job.id, { confirmed: true });
  });

  it('the tooltip shows the figures of a running agent while the view is visible', async () => {
    job = (await vscode.commands.executeCommand('paddock.startAgent', {
      repo: env('PADDOCK_HOST_TEST_WORKSPACE'),
      profile: 'usagetest',
      prompt: 'hold some memory',
      base: '',
      openTerminal: false,
    })) as JobRecord;
    await waitForState(ext, job.id, ['running']);
    await vscode.commands.executeCommand('paddock.agents.focus');
    // The agent reads running as soon as node starts, before it has touched its 60 MB: a first
    // sample may come before that (23 MB once in CI), so the tooltip is read until it shows them.
    const tooltip = await waitFor('the tooltip to show the 60 MB the agent holds, and its CPU', async () => {
      await ext.agents.refresh(job.id);
      const found = await treeItemFor(ext, job.id);
      const md = (found?.item.tooltip as vscode.MarkdownString | undefined)?.value ?? '';
      const memory = /\| Memory \| (\d+) MB \|/.exec(md);
      // CPU is over the last interval: none until the agent was sampled at both ends of one.
      if (!memory || !/\| Disk \|/.test(md) || !/\| CPU \|/.test(md)) return undefined;
      if (Number(memory[1]) < 60) throw new Error(`the tooltip says ${memory[1]} MB`);
      return md;
    }, 45_000);
    // Markdown-escaped: '0\.5%'.
    assert.match(tooltip, /\| CPU \| [\d\\.]+% \|/);
    assert.match(tooltip, /\| Running for \| \d+s \|/);
    const recorded = await waitFor('the sample recorded in the store', async () => {
      const usage = (await ext.store.read(job.id)).usage;
      return usage && usage.rssBytes !== null && usage.rssBytes >= 60 * 1024 * 1024 ? usage : undefined;
    });
    assert.equal(recorded.tokensIn, null, 'an agent that writes no transcript has no token figure');
    await waitFor('the totals in the status bar tooltip', () => /All agents: .*CPU · \d+(\.\d)? MB memory/.test(ext.statusTooltip()) || undefined);
  });

  it('paddock.tree.showUsage puts the figures in the description', async () => {
    await vscode.workspace.getConfiguration('paddock').update('tree.showUsage', true, vscode.ConfigurationTarget.Global);
    const description = await waitFor('the figures in the description', async () => {
      const found = await treeItemFor(ext, job.id);
      const text = String(found?.item.description ?? '');
      return /^running · \d+s · [\d.]+% CPU · \d+ MB · [\d.]+ (KB|MB) disk$/.test(text) ? text : undefined;
    });
    assert.ok(description);
  });
});
