/**
 * Several attempts in a real extension host: Start Agent with two profiles and
 * three attempts makes one group node with the attempts as children, each
 * checked (one breaks the check); Compare Attempts renders the comparison
 * document; Diff Two Attempts names the file they differ in; Keep This One
 * leaves one worktree. Run Check on an ended agent records its result; Send
 * Prompt to All Running types into every running attempt; Stop All in Group
 * stops them.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { JobRecord } from '../../src/core/store/schema';
import type { PaddockApi } from '../../src/extension';
import type { GroupNode, TreeNode } from '../../src/ui/tree/nodes';
import { env, paddock, restoresSettings, waitFor, waitForState } from './helpers';

describe('several attempts at one task', function () {
  this.timeout(180_000);
  let ext: PaddockApi;

  before(async () => {
    ext = await paddock();
    const config = vscode.workspace.getConfiguration('paddock');
    await config.update(
      'profiles',
      {
        ...(config.get<object>('profiles') ?? {}),
        tryGood: { command: 'sh', args: ['-c', "printf 'good\\nshared\\n%s\\n' \"$PADDOCK_JOB_ID\" > result.txt; sleep 1"] },
        tryBad: { command: 'sh', args: ['-c', "printf 'bad\\nshared\\n' > result.txt; sleep 1"] },
      },
      vscode.ConfigurationTarget.Global,
    );
    await config.update('checkCommand', 'head -1 result.txt; test "$(head -1 result.txt)" = good', vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    await vscode.workspace.getConfiguration('paddock').update('checkCommand', undefined, vscode.ConfigurationTarget.Global);
  });

  it('shows a group node with its attempts and their checks, compares them and keeps one', async () => {
    const jobs = (await vscode.commands.executeCommand('paddock.startAgent', {
      repo: env('PADDOCK_HOST_TEST_WORKSPACE'),
      profiles: ['tryGood', 'tryBad'],
      attempts: 3,
      prompt: 'Fix the date test',
      base: '',
      openTerminal: false,
    })) as JobRecord[];
    assert.equal(jobs.length, 3);
    assert.deepEqual(jobs.map((j) => j.profile), ['tryGood', 'tryBad', 'tryGood']);
    const groupId = jobs[0].group!.id;

    const done = await waitFor('every attempt checked', async () => {
      const records = await Promise.all(jobs.map((j) => ext.store.read(j.id)));
      return records.every((r) => r.check?.state === 'passed' || r.check?.state === 'failed') ? records : undefined;
    }, 90_000);
    assert.deepEqual(done.map((r) => r.check!.state), ['passed', 'failed', 'passed']);

    const group = await waitFor('the group node', async () => {
      await ext.agents.refresh(...jobs.map((j) => j.id));
      const roots = await ext.tree.getChildren();
      const all: TreeNode[] = [...roots];
      for (const r of roots) if (r.kind === 'repo') all.push(...(await ext.tree.getChildren(r)));
      const node = all.find((n): n is GroupNode => n.kind === 'group' && n.groupId === groupId);
      const item = node && ext.tree.getTreeItem(node);
      return item && /3 done/.test(String(item.description)) && /2 ✓ check, 1 ✗ check/.test(String(item.description)) ? { node, item } : undefined;
    });
    assert.equal(group.item.label, 'Fix the date test');
    assert.equal(group.item.description, '3 attempts · 3 done · 2 ✓ check, 1 ✗ check');
    assert.equal(group.item.contextValue, 'group:compare');
    const children = await ext.tree.getChildren(group.node);
    const rows = children.map((c) => ext.tree.getTreeItem(c));
    assert.deepEqual(rows.map((r) => r.label), ['Attempt 1 · tryGood', 'Attempt 2 · tryBad', 'Attempt 3 · tryGood']);
    // The attempts leave their files uncommitted: the row says so once its standing is computed (issue 12).
    assert.match(String(rows[0].description), /^completed · ✓ check \d+ s(?: · uncommitted changes)?$/);
    assert.match(String(rows[1].description), /^completed · ✗ check \(exit 1\)(?: · uncommitted changes)?$/);
    assert.match(String(rows[1].contextValue), /\bcheck\b.*\bkeep\b/);
    assert.equal(ext.tree.getParent(children[0]), group.node);

    const text = (await vscode.commands.executeCommand('paddock.compareAttempts', groupId)) as string;
    assert.match(text, /^# Fix the date test$/m);
    assert.match(text, /\| \\#2 \w+ \\\(tryBad\\\) \| completed \| \d+ s \| ✗ check \\\(exit 1\\\) \| 0 \| 1 \| 2 \| 0 \|/);
    assert.match(text, /## Lines added in common \(2\)/);
    assert.ok(vscode.workspace.textDocuments.some((d) => d.uri.scheme === 'paddock-compare'), 'the comparison document is open');

    const differing = (await vscode.commands.executeCommand('paddock.diffAttempts', groupId, jobs[0].id, jobs[2].id)) as string[];
    assert.deepEqual(differing, ['result.txt'], 'two good attempts differ only in the id line of result.txt');

    const kept = (await vscode.commands.executeCommand('paddock.keepAttempt', jobs[0].id, { confirmed: true })) as { cleaned: unknown[]; failed: unknown[] };
    assert.equal(kept.cleaned.length, 2);
    assert.deepEqual(kept.failed, []);
    assert.ok(existsSync(jobs[0].worktree!));
    for (const j of jobs.slice(1)) {
      const r = await ext.store.read(j.id);
      assert.equal(r.cleanup?.phase, 'complete');
      assert.ok(r.evidence?.snapshotRef);
      assert.ok(!existsSync(j.worktree!));
    }
  });
});

describe('checks and group commands on running and ended agents', function () {
  this.timeout(180_000);
  restoresSettings(['profiles', 'checkCommand']);
  let ext: PaddockApi;
  let group: JobRecord[] = [];

  before(async () => {
    ext = await paddock();
    const config = vscode.workspace.getConfiguration('paddock');
    await config.update('checkCommand', undefined, vscode.ConfigurationTarget.Global);
    await config.update(
      'profiles',
      {
        ...(config.get<object>('profiles') ?? {}),
        checked: { command: 'sh', args: ['-c', 'echo made > made.txt'] },
        // Reads two typed lines, writes them where the test can see them, then runs on until stopped.
        // Takes no prompt on its command line: the start's prompt is typed in first, then what is sent.
        listener: { command: 'sh', args: ['-c', 'IFS= read -r prompt; IFS= read -r line; printf "%s\\n" "$prompt" "$line" > heard.txt; exec sleep 600'] },
      },
      vscode.ConfigurationTarget.Global,
    );
  });

  after(async () => {
    for (const job of group) {
      const state = (await ext.store.read(job.id)).lifecycle.state;
      if (state === 'running' || state === 'waiting') await vscode.commands.executeCommand('paddock.stop', job.id, { confirmed: true });
    }
  });

  it('Run Check on an ended agent records passed, then failed when the check command fails', async () => {
    const job = (await vscode.commands.executeCommand('paddock.startAgent', { repo: env('PADDOCK_HOST_TEST_WORKSPACE'), profile: 'checked', prompt: 'make a file', base: '', openTerminal: false })) as JobRecord;
    await waitForState(ext, job.id, ['completed']);
    assert.ok(!(await ext.store.read(job.id)).check, 'no check ran before the command');
    const config = vscode.workspace.getConfiguration('paddock');
    await config.update('checkCommand', 'test -f made.txt', vscode.ConfigurationTarget.Global);
    const [passed] = (await vscode.commands.executeCommand('paddock.runCheck', job.id)) as { state: string; exitCode: number | null }[];
    assert.equal(passed.state, 'passed');
    assert.equal(passed.exitCode, 0);
    assert.equal((await ext.store.read(job.id)).check?.state, 'passed');

    await config.update('checkCommand', 'echo looking for missing.txt; test -f missing.txt', vscode.ConfigurationTarget.Global);
    const [failed] = (await vscode.commands.executeCommand('paddock.runCheck', job.id)) as { state: string; exitCode: number | null; summary: string }[];
    assert.equal(failed.state, 'failed');
    assert.equal(failed.exitCode, 1);
    assert.match(failed.summary, /looking for missing\.txt/);
    const record = await ext.store.read(job.id);
    assert.equal(record.check?.state, 'failed');
    assert.equal(record.check?.exitCode, 1);
  });

  it('Send Prompt to All Running: both running attempts read the text as typed input', async () => {
    await vscode.workspace.getConfiguration('paddock').update('checkCommand', undefined, vscode.ConfigurationTarget.Global);
    group = (await vscode.commands.executeCommand('paddock.startAgent', {
      repo: env('PADDOCK_HOST_TEST_WORKSPACE'),
      profile: 'listener',
      attempts: 2,
      prompt: 'Listen',
      base: '',
      openTerminal: false,
    })) as JobRecord[];
    assert.equal(group.length, 2);
    const groupId = group[0].group!.id;
    for (const job of group) await waitForState(ext, job.id, ['running', 'waiting']);
    const report = (await vscode.commands.executeCommand('paddock.sendPromptToGroup', groupId, 'hello from the host')) as { sent: string[]; skipped: unknown[] };
    assert.deepEqual([...report.sent].sort(), group.map((j) => j.id).sort());
    assert.deepEqual(report.skipped, []);
    for (const job of group) {
      const heard = await waitFor(`${job.id} to write what it read`, () => {
        const file = path.join(job.worktree!, 'heard.txt');
        // The shell creates the file before printf fills it: wait for both lines.
        const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
        return text.split('\n').length === 3 && text;
      });
      assert.equal(heard, 'Listen\nhello from the host\n');
    }
  });

  it('Stop All in Group: both running attempts are stopped', async () => {
    assert.equal(group.length, 2, 'the group of the previous test');
    for (const job of group) assert.match((await ext.store.read(job.id)).lifecycle.state, /^(running|waiting)$/);
    const report = (await vscode.commands.executeCommand('paddock.stopGroup', group[0].group!.id)) as { stopped: string[]; notStopped: unknown[] };
    assert.deepEqual([...report.stopped].sort(), group.map((j) => j.id).sort());
    assert.deepEqual(report.notStopped, []);
    for (const job of group) {
      const stopped = await waitForState(ext, job.id, ['cancelled']);
      assert.equal(stopped.lifecycle.pid, null);
    }
  });
});
