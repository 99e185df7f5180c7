/**
 * Attached terminals beyond the happy path: read-only viewers, several viewers
 * on one agent, and a worker that dies under an attached terminal.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { JobRecord } from '../../src/core/store/schema';
import { RESET_TERMINAL_MODES } from '../../src/core/protocol/terminalModes';
import type { PaddockApi } from '../../src/extension';
import type { StopReport } from '../../src/core/operations/types';
import { isGoneState, listProcesses } from '../../src/core/proc/scan';
import { isSameAndRunning } from '../../src/core/proc/signal';
import { TerminalManager } from '../../src/ui/terminals/terminalManager';
import { readRemembered } from '../../src/ui/terminals/rememberedTerminals';
import { env, paddock, restoresSettings, sleep, waitFor, waitForState } from './helpers';

/** Counts the window's reads of one record (the store object every part of the window shares). */
function countReads(ext: PaddockApi, id: string): { count: number; dispose(): void } {
  const store = ext.store;
  const original = store.read;
  const counter = {
    count: 0,
    dispose: () => {
      store.read = original;
    },
  };
  store.read = function (this: typeof store, jobId: string) {
    if (jobId === id) counter.count++;
    return original.call(this, jobId);
  };
  return counter;
}

/** A window's workspace state as VS Code keeps it for one window's life: a key-value map. */
class WindowMemento implements vscode.Memento {
  private readonly values = new Map<string, unknown>();
  keys(): readonly string[] {
    return [...this.values.keys()];
  }
  get<T>(key: string, defaultValue?: T): T {
    return (this.values.has(key) ? this.values.get(key) : defaultValue) as T;
  }
  async update(key: string, value: unknown): Promise<void> {
    this.values.set(key, value);
  }
}

/** About `chars` characters without a newline (sendText turns those into Enter): ASCII, CJK and astral characters. */
function pasteText(chars: number): string {
  const words = ['paste ', '漢字', '😀', 'x', '🎉🎉', 'é'];
  let out = '';
  for (let i = 0; out.length < chars; i++) out += words[i % words.length];
  return out;
}

/** A window's memento after a reload with a read-only and a writable terminal open on `job`. */
async function reloadedWithTwo(ext: PaddockApi, job: JobRecord, log: vscode.LogOutputChannel): Promise<WindowMemento> {
  const memento = new WindowMemento();
  const before = new TerminalManager(ext.store, memento, log);
  before.attach(job.id, job.title, { readOnly: true, preserveFocus: true });
  before.attach(job.id, job.title, { preserveFocus: true });
  await sleep(100);
  // The window reloads: the manager goes (its terminals remembered), then its terminals.
  const old = [...before.terminalsFor(job.id)];
  before.dispose();
  for (const t of old) t.terminal.dispose();
  return memento;
}

const ECHO = 'echo viewer-test-ready; while IFS= read -r line; do echo "got:$line"; done';

async function startEcho(ext: PaddockApi, title: string, script = ECHO): Promise<JobRecord> {
  const job = (await vscode.commands.executeCommand('paddock.startAgent', {
    repo: env('PADDOCK_HOST_TEST_WORKSPACE'),
    command: ['bash', '-c', script],
    title,
    openTerminal: false,
  })) as JobRecord;
  await waitForState(ext, job.id, ['running']);
  return job;
}

describe('attached terminals', function () {
  this.timeout(120_000);
  restoresSettings(['maxConcurrent']);
  let ext: PaddockApi;
  const started: string[] = [];

  before(async () => {
    ext = await paddock();
  });

  after(async () => {
    for (const id of started) {
      await vscode.commands.executeCommand('paddock.stop', id, { confirmed: true }).then(undefined, () => undefined);
    }
  });

  it('a read-only terminal shows output but cannot type; a writable one beside it can', async () => {
    const job = await startEcho(ext, 'two viewers');
    started.push(job.id);
    await vscode.commands.executeCommand('paddock.attachReadOnly', job.id);
    await vscode.commands.executeCommand('paddock.attach', job.id);
    const [viewer, writer] = ext.terminals.terminalsFor(job.id);
    assert.equal(viewer.pty.options.readOnly, true);
    assert.equal(writer.pty.options.readOnly, false);
    let seenByViewer = '';
    const sub = viewer.pty.onDidWrite((d) => (seenByViewer += d));
    try {
      await waitFor('both terminals to attach', () => seenByViewer.includes('viewer-test-ready') || undefined);
      viewer.terminal.sendText('from-the-read-only-viewer', true);
      writer.terminal.sendText('from-the-writer', true);
      await waitFor('the writer\'s line to reach the agent and both viewers', () => seenByViewer.includes('got:from-the-writer') || undefined);
      await sleep(300);
      assert.ok(!seenByViewer.includes('got:from-the-read-only-viewer'), 'the read-only viewer\'s typing never reached the agent');
    } finally {
      sub.dispose();
      viewer.terminal.dispose();
      writer.terminal.dispose();
    }
  });

  it('a worker killed under an attached terminal: the terminal says so and the agent reads as orphaned', async () => {
    // It outlives its worker: it ignores the hang-up and, once its terminal is gone, waits on.
    // It also leaves mouse reporting on and the cursor hidden, as a full-screen agent does.
    const job = await startEcho(ext, 'worker dies', `trap "" HUP; printf '\\033[?1000h\\033[?1006h\\033[?25l'; ${ECHO}; sleep 600`);
    started.push(job.id);
    await vscode.commands.executeCommand('paddock.attach', job.id);
    const [attached] = ext.terminals.terminalsFor(job.id);
    let agentPid = 0;
    const names: string[] = [];
    let seen = '';
    const subs = [attached.pty.onDidChangeName((n) => names.push(n)), attached.pty.onDidWrite((d) => (seen += d))];
    try {
      await waitFor('the terminal to attach', () => seen.includes('viewer-test-ready') || undefined);
      const record = await ext.store.read(job.id);
      agentPid = record.lifecycle.pid!;
      process.kill(record.lifecycle.workerPid!, 'SIGKILL');
      await waitFor('the terminal to show it lost the worker', () => names.some((n) => /\((disconnected|ended)\)$/.test(n)) || undefined);
      await waitFor('the terminal to report the agent\'s end', () => /orphaned/.test(seen) || undefined);
      await waitForState(ext, job.id, ['orphaned']);
      // Nobody draws any more: the agent's modes are reset before the notice, so its text can be selected.
      const afterAgent = seen.slice(seen.indexOf('viewer-test-ready'));
      const notice = afterAgent.search(/connection lost|orphaned/);
      assert.ok(afterAgent.slice(0, notice).includes(RESET_TERMINAL_MODES), JSON.stringify(afterAgent.slice(0, 300)));
    } finally {
      for (const s of subs) s.dispose();
      attached.terminal.dispose();
    }
    // Stop finds what is left of the agent's session without its worker and ends it. Its shell may
    // have exited by now (a zombie until something reaps it): that is gone, not something to end.
    const left = listProcesses().filter((p) => p.sid === agentPid && !isGoneState(p.state));
    assert.ok(left.length > 0, 'the agent outlived its worker');
    const reports = (await vscode.commands.executeCommand('paddock.stop', job.id, { confirmed: true })) as StopReport[];
    assert.equal(reports.length, 1, JSON.stringify(reports));
    const [report] = reports;
    assert.deepEqual([report.id, report.state, report.action], [job.id, 'orphaned', 'ended-leftovers'], JSON.stringify(report));
    assert.equal(report.stopped, true, `stop proves the orphan's processes gone (${report.reason})`);
    for (const p of left) assert.ok(report.ended.some((e) => e.pid === p.pid), `stop ended ${p.pid} (${p.comm}) of the agent's session: ${JSON.stringify(report.ended)}`);
    await waitFor('the ended processes to be gone', () => left.every((p) => !isSameAndRunning(p)) || undefined);
  });

  it('a 1 MB paste reaches the agent whole, and a terminal squeezed to no columns keeps its connection (bug 151)', async () => {
    const fs = await import('node:fs/promises');
    const os = await import('node:os');
    const dir = await fs.mkdtemp(`${os.tmpdir()}/paddock-paste-`);
    const out = `${dir}/pasted`;
    // Raw mode, and nothing read for 2 s: the paste waits in the worker's and the window's buffers.
    const job = await startEcho(ext, 'paste', `stty raw -echo; printf RAW-MODE; sleep 2; exec cat > '${out}'`);
    started.push(job.id);
    await vscode.commands.executeCommand('paddock.attach', job.id);
    const [attached] = ext.terminals.terminalsFor(job.id);
    let seen = '';
    const sub = attached.pty.onDidWrite((d) => (seen += d));
    try {
      await waitFor('raw mode', () => seen.includes('RAW-MODE') || undefined);
      const text = `${pasteText(1024 * 1024)}END`;
      attached.terminal.sendText(text, false);
      const size = async () => (await fs.stat(out).catch(() => undefined))?.size ?? 0;
      const expected = Buffer.from(text, 'utf8');
      await waitFor('the whole paste in the agent', async () => (await size()) >= expected.length || /connection lost/.test(seen) || undefined, 60_000);
      assert.ok(!/connection lost/.test(seen), JSON.stringify(seen.slice(-300)));
      // The terminal panel squeezed to nothing, then a huge one: the agent keeps its viewer.
      for (const [columns, rows] of [[0, 0], [1, 1], [5000, 900], [80, 24]]) attached.pty.setDimensions({ columns, rows });
      attached.terminal.sendText('+after-resizes', false);
      const all = Buffer.concat([expected, Buffer.from('+after-resizes')]);
      await waitFor('the keys typed after the resizes', async () => (await size()) >= all.length || /connection lost/.test(seen) || undefined);
      assert.ok(!/connection lost/.test(seen), JSON.stringify(seen.slice(-300)));
      assert.ok((await fs.readFile(out)).equals(all), 'every byte, in order');
    } finally {
      sub.dispose();
      attached.terminal.dispose();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('a paste cut short by the worker\'s death is said, with how many characters were not sent (bug 204)', async () => {
    // Raw mode and nothing read: the worker holds 1 MiB of the paste, the rest waits in the window's socket.
    const job = await startEcho(ext, 'paste cut', `trap "" HUP; stty raw -echo; printf RAW-MODE; sleep 600`);
    started.push(job.id);
    await vscode.commands.executeCommand('paddock.attach', job.id);
    const [attached] = ext.terminals.terminalsFor(job.id);
    let seen = '';
    const sub = attached.pty.onDidWrite((d) => (seen += d));
    try {
      await waitFor('raw mode', () => seen.includes('RAW-MODE') || undefined);
      attached.pty.handleInput('p'.repeat(4 * 1024 * 1024));
      await sleep(1000);
      process.kill((await ext.store.read(job.id)).lifecycle.workerPid!, 'SIGKILL');
      // Before: only *connection lost …*, the paste's end gone without a word.
      await waitFor('the terminal to say the paste was cut', () => /\(\d+ characters\) was not sent: the connection was lost/.test(seen) || undefined, 30_000);
      const count = Number(/\((\d+) characters\) was not sent/.exec(seen)![1]);
      assert.ok(count > 2 * 1024 * 1024 && count <= 4 * 1024 * 1024, `count: ${count}`);
    } finally {
      sub.dispose();
      attached.terminal.dispose();
    }
  });

  it('a window reload brings back every terminal of an agent shown in two, read-only and writable (bug 152)', async () => {
    const job = await startEcho(ext, 'two before reload');
    started.push(job.id);
    const log = vscode.window.createOutputChannel('Paddock reload test', { log: true });
    const memento = await reloadedWithTwo(ext, job, log);
    const after = new TerminalManager(ext.store, memento, log);
    try {
      assert.equal(await after.restore(), 2);
      const back = after.terminalsFor(job.id);
      assert.deepEqual(back.map((t) => t.pty.options.readOnly).sort(), [false, true]);
      const writer = back.find((t) => !t.pty.options.readOnly)!;
      let seen = '';
      const sub = writer.pty.onDidWrite((d) => (seen += d));
      try {
        await waitFor('the writable terminal to attach', () => seen.includes('viewer-test-ready') || undefined);
        writer.terminal.sendText('typed-after-reload', true);
        await waitFor('the line to reach the agent', () => seen.includes('got:typed-after-reload') || undefined);
      } finally {
        sub.dispose();
      }
    } finally {
      for (const t of after.terminalsFor(job.id)) t.terminal.dispose();
      after.dispose();
      log.dispose();
    }
  });

  it('a terminal opened or closed before the window restores its terminals does not make it forget the others (bug 152)', async () => {
    const job = await startEcho(ext, 'opened before restore');
    started.push(job.id);
    const log = vscode.window.createOutputChannel('Paddock early attach test', { log: true });
    const memento = await reloadedWithTwo(ext, job, log);
    const after = new TerminalManager(ext.store, memento, log);
    try {
      // Before initialize() reaches restore() (it waits for git and the agents), the person attaches
      // the writable one from the palette, and opens a read-only one and closes it again.
      after.attach(job.id, job.title, { preserveFocus: true });
      after.attach(job.id, job.title, { readOnly: true, preserveFocus: true }).terminal.dispose();
      await waitFor('the closed terminal to go', () => after.terminalsFor(job.id).length === 1 || undefined);
      assert.equal(await after.restore(), 1);
      assert.deepEqual(after.terminalsFor(job.id).map((t) => t.pty.options.readOnly).sort(), [false, true]);
      assert.equal(readRemembered(memento.get('paddock.attachedTerminals')).length, 2);
    } finally {
      for (const t of after.terminalsFor(job.id)) t.terminal.dispose();
      after.dispose();
      log.dispose();
    }
  });

  it('two alike remembered and one opened before the restore: the restore brings back the other (bug 152, review 2)', async () => {
    const job = await startEcho(ext, 'two writable');
    started.push(job.id);
    const log = vscode.window.createOutputChannel('Paddock two alike test', { log: true });
    const memento = new WindowMemento();
    await memento.update('paddock.attachedTerminals', [{ jobId: job.id, readOnly: false }, { jobId: job.id, readOnly: false }]);
    const after = new TerminalManager(ext.store, memento, log);
    try {
      // The person's terminal stands for the first entry only; the second is still to restore.
      after.attach(job.id, job.title, { preserveFocus: true });
      assert.equal(await after.restore(), 1);
      assert.equal(after.terminalsFor(job.id).length, 2);
      assert.equal(readRemembered(memento.get('paddock.attachedTerminals')).length, 2);
    } finally {
      for (const t of after.terminalsFor(job.id)) t.terminal.dispose();
      after.dispose();
      log.dispose();
    }
  });

  it('a terminal that cannot reach a suspended worker says so once, not at every retry, then attaches when it resumes (bug 153)', async () => {
    const job = await startEcho(ext, 'suspended worker');
    started.push(job.id);
    const workerPid = (await ext.store.read(job.id)).lifecycle.workerPid!;
    process.kill(workerPid, 'SIGSTOP');
    let seen = '';
    const names: string[] = [];
    // As after a window reload with the terminal open: it attaches while the worker is stopped.
    const attached = ext.terminals.attach(job.id, job.title, { preserveFocus: true });
    const subs = [attached.pty.onDidWrite((d) => (seen += d)), attached.pty.onDidChangeName((n) => names.push(n))];
    try {
      try {
        await waitFor('the terminal to say it cannot connect', () => /suspended/.test(seen) || undefined);
        // Its retries back off 0.25, 0.5, 1, 2, 4 s: five of them within 10 s, each as unanswered.
        await sleep(10_000);
        assert.equal(seen.match(/\[paddock\]/g)?.length, 1, JSON.stringify(seen));
        assert.match(names.at(-1) ?? '', /\(disconnected\)$/);
      } finally {
        process.kill(workerPid, 'SIGCONT');
      }
      await waitFor('the agent\'s screen once its worker resumes', () => seen.includes('viewer-test-ready') || undefined, 30_000);
      assert.equal(names.at(-1), attached.pty.name);
    } finally {
      for (const sub of subs) sub.dispose();
      attached.terminal.dispose();
    }
  });

  it('a terminal on a queued agent says so once, then shows the agent when a slot frees', async () => {
    const config = vscode.workspace.getConfiguration('paddock');
    // The agent started from the CLI before the window holds a slot: one slot means the next one queues.
    await config.update('maxConcurrent', 1, vscode.ConfigurationTarget.Global);
    try {
      const job = (await vscode.commands.executeCommand('paddock.startAgent', {
        repo: env('PADDOCK_HOST_TEST_WORKSPACE'),
        command: ['bash', '-c', ECHO],
        title: 'queued viewer',
        openTerminal: true,
      })) as JobRecord;
      started.push(job.id);
      await waitForState(ext, job.id, ['queued']);
      const [attached] = ext.terminals.terminalsFor(job.id);
      let seen = '';
      const sub = attached.pty.onDidWrite((d) => (seen += d));
      try {
        await waitFor('the queued notice', () => /queued/.test(seen) || undefined);
        // The terminal looks at the record again every half second while the agent is queued:
        // let it look four more times, then the notice must still be there once.
        const looks = countReads(ext, job.id);
        try {
          await waitFor('four more looks at the queued record', () => looks.count >= 4 || undefined);
        } finally {
          looks.dispose();
        }
        assert.equal(seen.match(/queued/g)?.length, 1, 'the notice is written once, not once per retry');
        assert.ok(!/connection lost/.test(seen), 'no reconnect noise while queued');
        await config.update('maxConcurrent', 16, vscode.ConfigurationTarget.Global);
        await waitFor('the agent to start and show its screen', () => seen.includes('viewer-test-ready') || undefined, 60_000);
      } finally {
        sub.dispose();
        attached.terminal.dispose();
      }
    } finally {
      await config.update('maxConcurrent', 16, vscode.ConfigurationTarget.Global);
    }
  });

  it('shows an agent\'s changed files as children and opens their diff', async () => {
    const job = await startEcho(ext, 'changes');
    started.push(job.id);
    const fs = await import('node:fs/promises');
    await fs.writeFile(`${job.worktree}/NEW_FILE.md`, 'written by the agent\n');
    await fs.appendFile(`${job.worktree}/README.md`, 'one more line\n');
    const node = ext.tree.agent(job.id)!;
    const children = await ext.tree.getChildren(node);
    const files = children.filter((c) => c.kind === 'file');
    const labels = files.map((f) => String(ext.tree.getTreeItem(f).label)).sort();
    assert.deepEqual(labels, ['NEW_FILE.md', 'README.md']);
    const readme = files.find((f) => String(ext.tree.getTreeItem(f).label) === 'README.md')!;
    const item = ext.tree.getTreeItem(readme);
    assert.equal(item.command?.command, 'paddock.openFileDiff');
    // As a click on the file row runs it: the row's command with the row's arguments.
    await vscode.commands.executeCommand('paddock.openFileDiff', ...(item.command!.arguments ?? []));
    await waitFor('the diff editor', () => vscode.window.tabGroups.activeTabGroup.activeTab?.input instanceof vscode.TabInputTextDiff || undefined);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
