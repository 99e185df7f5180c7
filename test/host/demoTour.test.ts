/**
 * The first five minutes: Start Demo Agents brings real demo agents to every
 * state the Agents view shows, through the command a person runs.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { DemoTourResult } from '../../src/core/operations/demoTour';
import { env, paddock, treeItemFor, waitFor } from './helpers';

describe('Start Demo Agents', function () {
  this.timeout(180_000);

  it('shows waiting, running, failed, orphaned, cleanup incomplete (holder named) and cleaned', async () => {
    const ext = await paddock();
    const result = (await vscode.commands.executeCommand('paddock.startDemoAgents', { repo: env('PADDOCK_HOST_TEST_WORKSPACE') })) as DemoTourResult;
    const expect: [keyof DemoTourResult['agents'], RegExp][] = [
      ['waiting', /^waiting for you/],
      ['running', /^running/],
      ['failed', /^failed \(exit 1\)/],
      ['orphaned', /^orphaned/],
      ['holder', /cleanup failed at removing|cleanup.*removing/],
      ['cleaned', /cleaned/],
    ];
    for (const [which, pattern] of expect) {
      const id = result.agents[which];
      await waitFor(`${which} demo agent's row`, async () => {
        await ext.agents.refresh(id);
        const found = await treeItemFor(ext, id);
        return found && pattern.test(String(found.item.description)) ? found : undefined;
      }, 30_000);
    }
    const held = await ext.store.read(result.agents.holder);
    assert.ok(held.cleanup?.holders.some((h) => h.pid === result.holderPid), 'the holding process is named');
    process.kill(result.holderPid, 'SIGKILL');
    for (const id of [result.agents.running, result.agents.waiting]) await vscode.commands.executeCommand('paddock.stop', id, { confirmed: true });
  });
});
