import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { paddockExtension } from './helpers';

describe('activation', () => {
  it('activates and returns its API', async () => {
    const ext = paddockExtension();
    const api = await ext.activate();
    assert.ok(ext.isActive, 'extension should be active');
    assert.deepEqual(Object.keys(api).sort(), ['agents', 'notifier', 'review', 'standings', 'statusText', 'statusTooltip', 'store', 'terminals', 'tree', 'usage'], 'the API is what tests observe, not the extension object');
  });

  it('registers every contributed command', async () => {
    const ext = paddockExtension();
    await ext.activate();
    const contributed: { command: string }[] = ext.packageJSON.contributes.commands;
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = contributed.map((c) => c.command).filter((id) => !registered.has(id));
    assert.deepEqual(missing, [], `commands contributed but not registered: ${missing.join(', ')}`);
    for (const id of ['paddock.startAgent', 'paddock.attach', 'paddock.stop', 'paddock.retry', 'paddock.cleanUp',
      'paddock.retryCleanup', 'paddock.stopAll', 'paddock.refresh']) {
      assert.ok(registered.has(id), `${id} is registered`);
    }
  });

  it('contributes the agents view in the paddock container, with welcome content', async () => {
    const ext = paddockExtension();
    const { viewsContainers, views, viewsWelcome } = ext.packageJSON.contributes;
    assert.ok(viewsContainers.activitybar.some((c: { id: string }) => c.id === 'paddock'));
    assert.ok(views.paddock.some((v: { id: string }) => v.id === 'paddock.agents'));
    const welcome = viewsWelcome.find((w: { view: string }) => w.view === 'paddock.agents');
    assert.match(welcome.contents, /\[Start Agent\]\(command:paddock\.startAgent\)/);
    // The view can be focused through the command VS Code generates for it.
    await vscode.commands.executeCommand('paddock.agents.focus');
  });
});
