/**
 * An attached terminal that reconnects: to a new generation of its agent after a Retry (it says
 * so, and the old run's output stays in its scrollback, bug 168), with keys typed meanwhile (bug
 * 171), and with a full-screen agent's last screen in view (bug 172).
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Terminal } from '@xterm/headless';
import * as vscode from 'vscode';
import type { JobRecord } from '../../src/core/store/schema';
import type { PaddockApi } from '../../src/extension';
import { env, paddock, waitFor, waitForState } from './helpers';

/**
 * Holds the window's reads of one record until released: the terminal's next look at it (its
 * retries back off to 5 s apart) then comes after the agent ended and a retry started the next
 * generation, as it does when a person retries within those seconds. Only the timing is changed.
 */
function holdReads(ext: PaddockApi, id: string): { held: number; release(): void } {
  const store = ext.store;
  const original = store.read;
  let open!: () => void;
  const released = new Promise<void>((resolve) => (open = resolve));
  const gate = {
    held: 0,
    release: () => {
      store.read = original;
      open();
    },
  };
  store.read = async function (this: typeof store, jobId: string) {
    if (jobId === id) {
      gate.held++;
      await released;
    }
    return original.call(this, jobId);
  };
  return gate;
}

/** What a terminal shows after `written`, as VS Code's xterm.js draws it: the view's lines, blank ones dropped. */
async function view(written: string, rows: number): Promise<string[]> {
  const term = new Terminal({ cols: 80, rows, allowProposedApi: true });
  await new Promise<void>((resolve) => term.write(written, resolve));
  const buffer = term.buffer.active;
  const lines = Array.from({ length: rows }, (_, i) => buffer.getLine(buffer.baseY + i)?.translateToString(true) ?? '');
  term.dispose();
  return lines.filter((l) => l.trim() !== '');
}

describe('attached terminals and a new generation', function () {
  this.timeout(120_000);
  let ext: PaddockApi;

  before(async () => {
    ext = await paddock();
  });

  it('a terminal reconnecting while a retry starts generation 2 says so in a dim line and in its title, and keeps generation 1\'s output (bug 168)', async () => {
    const job = (await vscode.commands.executeCommand('paddock.startAgent', {
      repo: env('PADDOCK_HOST_TEST_WORKSPACE'),
      command: ['bash', '-c', 'echo run-ready; exec sleep 600'],
      title: 'retried under a terminal',
      openTerminal: false,
    })) as JobRecord;
    try {
      await waitForState(ext, job.id, ['running']);
      const attached = ext.terminals.attach(job.id, job.title, { preserveFocus: true });
      let seen = '';
      const names: string[] = [];
      const subs = [attached.pty.onDidWrite((d) => (seen += d)), attached.pty.onDidChangeName((n) => names.push(n))];
      try {
        await waitFor('the first run\'s screen', () => seen.includes('run-ready') || undefined);
        const workerPid = (await ext.store.read(job.id)).lifecycle.workerPid!;
        const gate = holdReads(ext, job.id);
        try {
          process.kill(workerPid, 'SIGKILL');
          await waitFor('the terminal to lose its worker and look again', () => (/connection lost/.test(seen) && gate.held > 0) || undefined);
          // The person retries (here from the CLI: the window's own reads are held).
          await promisify(execFile)(process.execPath, [`${env('PADDOCK_REPO_ROOT')}/dist/cli.js`, 'retry', job.id], { timeout: 60_000 });
        } finally {
          gate.release();
        }
        await waitFor('the new run\'s screen', () => seen.lastIndexOf('run-ready') > seen.indexOf('run-ready') || undefined, 30_000);
        const first = seen.indexOf('run-ready');
        const second = seen.lastIndexOf('run-ready');
        const notice = seen.indexOf('[paddock] generation 2 started');
        assert.ok(notice > first && notice < second, `one dim line says so before the new screen: ${JSON.stringify(seen.slice(first, second + 20))}`);
        assert.ok(!seen.slice(notice).includes('\x1b[3J'), 'the old run\'s output is not erased from the scrollback');
        // The dim line is scrolled off with the old run: what is in view, the title, says it until a key is typed.
        await waitFor('the title to name the new generation', () => names.at(-1) === `${attached.pty.name} (generation 2, retried)` || undefined);
        attached.terminal.sendText('x', false);
        await waitFor('the title to go back to the agent\'s at the first keystroke', () => names.at(-1) === attached.pty.name || undefined);
      } finally {
        for (const sub of subs) sub.dispose();
        attached.terminal.dispose();
      }
    } finally {
      await vscode.commands.executeCommand('paddock.stop', job.id, { confirmed: true }).then(undefined, () => undefined);
    }
  });

  it('keys typed while a terminal reconnects are not sent and it says so, and none reach generation 2 before its screen (bug 171)', async () => {
    const job = (await vscode.commands.executeCommand('paddock.startAgent', {
      repo: env('PADDOCK_HOST_TEST_WORKSPACE'),
      command: ['bash', '-c', 'echo run-ready; while IFS= read -r l; do echo "got:$l"; done'],
      title: 'typed at while reconnecting',
      openTerminal: false,
    })) as JobRecord;
    try {
      await waitForState(ext, job.id, ['running']);
      const attached = ext.terminals.attach(job.id, job.title, { preserveFocus: true });
      const { pty } = attached;
      let seen = '';
      let typing: NodeJS.Timeout | undefined;
      const names: string[] = [];
      const nameSub = pty.onDidChangeName((n) => names.push(n));
      const sub = pty.onDidWrite((d) => {
        seen += d;
        // The person types until the new run's screen is written, and not after it.
        if (typing && seen.includes('[paddock] generation 2 started')) clearInterval(typing);
      });
      try {
        await waitFor('the first run\'s screen', () => seen.includes('run-ready') || undefined);
        const workerPid = (await ext.store.read(job.id)).lifecycle.workerPid!;
        const gate = holdReads(ext, job.id);
        try {
          process.kill(workerPid, 'SIGKILL');
          await waitFor('the terminal to lose its worker and look again', () => (/connection lost/.test(seen) && gate.held > 0) || undefined);
          pty.handleInput('lost-key\r');
          pty.handleInput('lost-again\r');
          assert.equal(seen.match(/\[paddock\] what you typed was not sent: the terminal is reconnecting/g)?.length, 1, JSON.stringify(seen));
          await promisify(execFile)(process.execPath, [`${env('PADDOCK_REPO_ROOT')}/dist/cli.js`, 'retry', job.id], { timeout: 60_000 });
          // Typing on through the reconnect: the attach and its screen come in between.
          typing = setInterval(() => pty.handleInput('early\r'), 2);
        } finally {
          gate.release();
        }
        await waitFor('the new run\'s screen', () => seen.includes('[paddock] generation 2 started') || undefined, 30_000);
        clearInterval(typing);
        // The new screen's clear took the dim line that said the keys were not sent: the title says it.
        const shown = await view(seen, (pty as unknown as { dimensions?: { rows: number } }).dimensions?.rows ?? 24);
        assert.ok(!shown.some((l) => l.includes('was not sent')), `the dim line is cleared with the old screen: ${JSON.stringify(shown)}`);
        assert.equal(names.at(-1), `${pty.name} (generation 2, retried) (what you typed was not sent)`);
        pty.handleInput('after\r');
        await waitFor('a key typed at the new screen to reach it', () => seen.includes('got:after') || undefined);
        assert.equal(names.at(-1), pty.name, 'the title is the agent\'s again at the first keystroke');
        const sinceNew = seen.slice(seen.indexOf('[paddock] generation 2 started'));
        assert.ok(!/early|lost-key|lost-again/.test(sinceNew), `nothing typed before its screen reached generation 2: ${JSON.stringify(sinceNew)}`);
      } finally {
        clearInterval(typing);
        nameSub.dispose();
        sub.dispose();
        attached.terminal.dispose();
      }
    } finally {
      await vscode.commands.executeCommand('paddock.stop', job.id, { confirmed: true }).then(undefined, () => undefined);
    }
  });

  it('keys typed once a first attach is sent reach the agent, and keys typed before it are said not sent in the title (bug 171)', async () => {
    const job = (await vscode.commands.executeCommand('paddock.startAgent', {
      repo: env('PADDOCK_HOST_TEST_WORKSPACE'),
      command: ['bash', '-c', 'echo run-ready; while IFS= read -r l; do echo "got:$l"; done'],
      title: 'typed at a first attach',
      openTerminal: false,
    })) as JobRecord;
    try {
      await waitForState(ext, job.id, ['running']);
      const attached = ext.terminals.attach(job.id, job.title, { preserveFocus: true });
      const { pty } = attached;
      const connected = () => (pty as unknown as { client?: object }).client !== undefined;
      let seen = '';
      const names: string[] = [];
      const subs = [pty.onDidWrite((d) => (seen += d)), pty.onDidChangeName((n) => names.push(n))];
      // A fast typist from the moment the terminal opens until the agent's screen is written.
      const sent: string[] = [];
      let unsent = 0;
      let n = 0;
      const typing = setInterval(() => {
        if (seen.includes('run-ready')) return;
        const key = `early${++n}`;
        if (connected()) sent.push(key);
        else unsent++;
        pty.handleInput(`${key}\r`);
      }, 2);
      try {
        await waitFor('the screen', () => seen.includes('run-ready') || undefined);
        clearInterval(typing);
        pty.handleInput('after\r');
        await waitFor('a key typed at the screen to reach the agent', () => seen.includes('got:after') || undefined);
        // No screen was shown before: what followed the attach is the agent's, as in tmux.
        for (const key of sent) assert.ok(seen.includes(`got:${key}\r`), `${key}, typed once the attach was sent, reached the agent: ${JSON.stringify(seen)}`);
        if (unsent > 0) assert.ok(names.includes(`${pty.name} (what you typed was not sent)`), `the title said ${unsent} typed before the attach were not sent: ${JSON.stringify(names)}`);
        console.log(`      (typed ${sent.length} once attaching, ${unsent} before)`);
      } finally {
        clearInterval(typing);
        for (const sub of subs) sub.dispose();
        attached.terminal.dispose();
      }
    } finally {
      await vscode.commands.executeCommand('paddock.stop', job.id, { confirmed: true }).then(undefined, () => undefined);
    }
  });

  it('a full-screen agent\'s notices while reconnecting to a queued agent take one row each, the last screen kept (bug 172)', async () => {
    const job = (await vscode.commands.executeCommand('paddock.startAgent', {
      repo: env('PADDOCK_HOST_TEST_WORKSPACE'),
      command: ['bash', '-c', 'printf "\\033[?1049;25h\\033[H~ full-screen top\\033[2;1H~ full-screen second\\033[5;1H~ full-screen last"; exec sleep 600'],
      title: 'full screen, then queued',
      openTerminal: false,
    })) as JobRecord;
    const store = ext.store;
    const original = store.read;
    try {
      await waitForState(ext, job.id, ['running']);
      const attached = ext.terminals.attach(job.id, job.title, { preserveFocus: true });
      let seen = '';
      const sub = attached.pty.onDidWrite((d) => (seen += d));
      try {
        await waitFor('the full screen', () => seen.includes('full-screen last') || undefined);
        const { rows = 24, columns = 80 } = (attached.pty as unknown as { dimensions?: { rows: number; columns: number } }).dimensions ?? {};
        // The reconnect finds the agent queued again (a Retry with every slot in use, as the window reads it).
        store.read = async function (this: typeof store, jobId: string) {
          const record = await original.call(this, jobId);
          return jobId === job.id ? { ...record, lifecycle: { ...record.lifecycle, state: 'queued' as const } } : record;
        };
        process.kill((await original.call(store, job.id)).lifecycle.workerPid!, 'SIGKILL');
        await waitFor('the queued notice', () => seen.includes('the agent is queued') || undefined, 30_000);
        const term = new Terminal({ cols: columns, rows, allowProposedApi: true });
        await new Promise<void>((resolve) => term.write(seen, resolve));
        const buffer = term.buffer.active;
        const shown = Array.from({ length: rows }, (_, i) => buffer.getLine(buffer.baseY + i)?.translateToString(true) ?? '');
        const alternate = buffer.type === 'alternate';
        term.dispose();
        assert.ok(alternate, 'the terminal stays on the alternate screen');
        // Moved up one row a notice: the top two rows are the ones not in view.
        assert.equal(shown[0], '', JSON.stringify(shown));
        assert.equal(shown[2], '~ full-screen last', JSON.stringify(shown));
        assert.match(shown[rows - 2], /^\[paddock\] connection lost/);
        assert.match(shown[rows - 1], /^\[paddock\] the agent is queued: all agent slots are in use/);
      } finally {
        store.read = original;
        sub.dispose();
        attached.terminal.dispose();
      }
    } finally {
      store.read = original;
      await vscode.commands.executeCommand('paddock.stop', job.id, { confirmed: true }).then(undefined, () => undefined);
    }
  });

  it('a full-screen agent\'s last screen stays in view while its terminal reconnects, and after it is found ended (bug 172)', async () => {
    const job = (await vscode.commands.executeCommand('paddock.startAgent', {
      repo: env('PADDOCK_HOST_TEST_WORKSPACE'),
      command: ['bash', '-c', 'printf "\\033[?1049h\\033[H~ full-screen top\\033[2;1H~ full-screen second\\033[5;1H~ full-screen last"; exec sleep 600'],
      title: 'full screen under a lost worker',
      openTerminal: false,
    })) as JobRecord;
    try {
      await waitForState(ext, job.id, ['running']);
      const attached = ext.terminals.attach(job.id, job.title, { preserveFocus: true });
      let seen = '';
      const sub = attached.pty.onDidWrite((d) => (seen += d));
      try {
        await waitFor('the full screen', () => seen.includes('full-screen last') || undefined);
        // The size VS Code gave the terminal (kept by the pseudoterminal): the replay must be as high.
        const rows = (attached.pty as unknown as { dimensions?: { rows: number } }).dimensions?.rows ?? 24;
        const workerPid = (await ext.store.read(job.id)).lifecycle.workerPid!;
        const gate = holdReads(ext, job.id);
        try {
          process.kill(workerPid, 'SIGKILL');
          await waitFor('the terminal to lose its worker and look again', () => (/connection lost/.test(seen) && gate.held > 0) || undefined);
          const shown = await view(seen, rows);
          // Moved up one row for the notice: its top row is the one not in view.
          assert.deepEqual(shown.slice(0, 2), ['~ full-screen second', '~ full-screen last'], `the last screen is in view: ${JSON.stringify(shown)}`);
          assert.match(shown.at(-1) ?? '', /\[paddock\] connection lost/);
        } finally {
          gate.release();
        }
        // The agent went with its worker: the terminal finds it ended, the last screen still in view.
        await waitFor('the end notice', () => /\[paddock\] agent \S+ is /.test(seen) || undefined, 30_000);
        const shown = await view(seen, rows);
        assert.ok(shown.includes('~ full-screen last'), `the last screen is in view at the end: ${JSON.stringify(shown)}`);
        assert.match(shown.slice(shown.indexOf('~ full-screen last')).join(''), /\[paddock\] agent \S+ is /);
      } finally {
        sub.dispose();
        attached.terminal.dispose();
      }
    } finally {
      await vscode.commands.executeCommand('paddock.stop', job.id, { confirmed: true }).then(undefined, () => undefined);
    }
  });
});
