/**
 * Bug 204: the worker dies while a long paste is still being sent (the window's terminal and `paddock attach` send
 * it as many `input` frames, queued in the client's socket). What the socket still held was dropped without a word:
 * the person believed the agent had the whole text. The client now says how much input was still queued on its side
 * when the connection was lost, and both viewers say it.
 */
import * as assert from 'node:assert/strict';
import { WorkerClient } from '../../../../src/core/protocol/client';
import { unsentInputWords } from '../../../../src/core/protocol/unsentInput';
import { sleep, useWorkerSandbox } from './fixtures';

describe('a paste cut short by the worker\'s death (bug 204)', function () {
  this.timeout(60_000);
  const ctx = useWorkerSandbox();

  async function attachThenKill(paste: string): Promise<{ reason?: string; unsentInput: number }> {
    const { sb } = ctx;
    // The agent reads nothing: the worker holds 1 MiB of its input, then reads the socket no further.
    const job = await sb.start(['sh', '-c', 'stty raw -echo; sleep 600'], { waitFor: ['running'] });
    const client = await WorkerClient.connect(sb.store, job.id);
    ctx.clients.push(client);
    await client.attach({ cols: 80, rows: 24, readOnly: false });
    const closed = new Promise<{ reason?: string; unsentInput: number }>((r) => client.onDidClose(r));
    client.input(paste);
    await sleep(1000);
    process.kill((await sb.store.read(job.id)).lifecycle.workerPid!, 'SIGKILL');
    return closed;
  }

  it('says how many characters of the paste were still queued when the connection was lost', async () => {
    const paste = 'p'.repeat(4 * 1024 * 1024);
    const lost = await attachThenKill(paste);
    // At most 1 MiB went into the worker, a few hundred KB wait in the kernel: well over 2 Mi were never sent.
    assert.ok(lost.unsentInput > 2 * 1024 * 1024 && lost.unsentInput <= paste.length, `unsent: ${lost.unsentInput}`);
  });

  it('says nothing when everything typed had gone out (a guard)', async () => {
    const lost = await attachThenKill('ls\r');
    assert.equal(lost.unsentInput, 0);
    assert.doesNotMatch(lost.reason ?? '', /agent (exited|ended)/, 'the worker died, not the agent');
  });

  it('the words name the count', () => {
    assert.match(unsentInputWords(1), /\(1 character\) was not sent/);
    assert.match(unsentInputWords(2_500_000), /\(2500000 characters\) was not sent: the connection was lost/);
  });
});
