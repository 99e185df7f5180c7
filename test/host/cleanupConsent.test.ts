/**
 * Cleanup that would lose files waits for the person, and a cleaned agent's
 * worktree comes back: Clean Up Anyway and Restore Worktree through the real
 * commands, the tree's rows and their context values.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { JobRecord } from '../../src/core/store/schema';
import type { PaddockApi } from '../../src/extension';
import { env, paddock, restoresSettings, treeItemFor, waitFor, waitForState } from './helpers';

// Writes an ignored 2 MB file (over a 1 MB archive limit), an ignored small one and an edit, then ends.
const BIG_AGENT = 'printf "big.bin\\nsmall.env\\n" > .gitignore; head -c 2097152 /dev/urandom > big.bin; echo KEY=1 > small.env; echo agent work > work.txt';

describe('cleanup that needs consent, and restore', function () {
  this.timeout(180_000);
  restoresSettings(['profiles', 'cleanup.archiveLimitMB']);
  let ext: PaddockApi;
  let job: JobRecord;

  before(async () => {
    ext = await paddock();
    const config = vscode.workspace.getConfiguration('paddock');
    await config.update('profiles', { hostbig: { command: 'bash', args: ['-c', BIG_AGENT] } }, vscode.ConfigurationTarget.Global);
    await config.update('cleanup.archiveLimitMB', 1, vscode.ConfigurationTarget.Global);
  });

  it('stops before removing anything, says which file, and offers Clean Up Anyway on the row', async () => {
    job = (await vscode.commands.executeCommand('paddock.startAgent', {
      repo: env('PADDOCK_HOST_TEST_WORKSPACE'),
      profile: 'hostbig',
      prompt: 'write a big ignored file',
      base: '',
      openTerminal: false,
    })) as JobRecord;
    await waitForState(ext, job.id, ['completed']);
    await vscode.commands.executeCommand('paddock.cleanUp', job.id, { confirmed: true });
    const paused = await ext.store.read(job.id);
    assert.equal(paused.cleanup?.phase, 'incomplete');
    assert.equal(paused.cleanup?.awaitingConsent, true);
    assert.match(paused.cleanup?.lastError ?? '', /big\.bin/);
    assert.ok(existsSync(path.join(job.worktree!, 'big.bin')), 'nothing was removed');
    await ext.agents.refresh(job.id);
    const found = await treeItemFor(ext, job.id);
    assert.match(String(found?.item.description), /cleanup paused/);
    assert.match(String(found?.item.contextValue), /^agent:completed:.*\bconsent\b/);
  });

  it('Clean Up Anyway drops exactly that file and records it as lost', async () => {
    await vscode.commands.executeCommand('paddock.cleanUpAnyway', job.id, { confirmed: true });
    const cleaned = await waitFor('cleanup to complete', async () => {
      const r = await ext.store.read(job.id);
      return r.cleanup?.phase === 'complete' ? r : undefined;
    }, 60_000);
    assert.deepEqual(cleaned.evidence?.summary?.lost.map((l) => l.path), ['big.bin']);
    assert.equal(existsSync(job.worktree!), false);
    await ext.agents.refresh(job.id);
    const found = await treeItemFor(ext, job.id);
    assert.match(String(found?.item.contextValue), /\brestore\b/);
    assert.match((found?.item.tooltip as vscode.MarkdownString).value, /Lost, as agreed/);
  });

  it('Restore Worktree brings back the edit and the archived ignored file', async () => {
    const result = (await vscode.commands.executeCommand('paddock.restore', job.id)) as { path: string };
    assert.equal(result.path, job.worktree);
    assert.equal(readFileSync(path.join(result.path, 'work.txt'), 'utf8'), 'agent work\n');
    assert.equal(readFileSync(path.join(result.path, 'small.env'), 'utf8'), 'KEY=1\n');
    assert.equal(existsSync(path.join(result.path, 'big.bin')), false);
  });
});
