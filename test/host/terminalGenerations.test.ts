/**
 * An attached terminal and a Retry: a terminal that reconnects to a new generation of its agent
 * says so, and the old run's output stays in its scrollback (bug 168).
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
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
});

