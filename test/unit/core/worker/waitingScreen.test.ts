import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkerClient } from '../../../../src/core/protocol/client';
import type { JobRecord } from '../../../../src/core/store';
import { sleep, useWorkerSandbox, waitUntil } from './fixtures';

/** "Needs you" from the screen, with real programs on a real PTY: where a question is, and when it was written. */
describe('Waiting on a real screen', function () {
  this.timeout(60_000);
  const w = useWorkerSandbox();

  async function attach(id: string): Promise<WorkerClient> {
    const c = await WorkerClient.connect(w.sb.store, id);
    w.clients.push(c);
    await c.attach({ cols: 80, rows: 24, readOnly: false });
    return c;
  }

  /** The states the record shows over `ms` (read every 100 ms; waiting is written at most once a second). */
  async function statesOver(id: string, ms: number): Promise<string[]> {
    const seen: string[] = [];
    for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) {
      const { lifecycle } = await w.sb.store.read(id);
      const state = lifecycle.waitingReason ? `${lifecycle.state}:${lifecycle.waitingReason}` : lifecycle.state;
      if (seen[seen.length - 1] !== state) seen.push(state);
    }
    return seen;
  }

  const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').length - 1 : 0);

  async function waitingFor(id: string): Promise<JobRecord> {
    return w.sb.waitForState(id, ['waiting'], 10_000);
  }

  it('a TUI working silently behind its emptied input box is running; waiting once it draws the box again', async () => {
    // The box is redrawn on every key (the program echoes itself) and emptied at once on Enter; then 3 s of silent work.
    const script = `stty -icanon -echo min 1; box() { printf '\\r\\033[K│ > %s' "$1"; }; printf 'ready\\r\\n'; box ''; line=''
      while :; do k=$(dd bs=1 count=1 2>/dev/null)
        if [ -z "$k" ]; then box ''; sleep 4; printf '\\r\\033[Kdid %s\\r\\n' "$line"; echo "$line" >> done; box ''; line=''
        else line="$line$k"; box "$line"; fi
      done`;
    const job = await w.sb.start(['sh', '-c', script], { settings: { waitingPattern: '^│ >' } });
    assert.equal((await waitingFor(job.id)).lifecycle.waitingReason, 'pattern', 'the empty box waits for the person');
    const c = await attach(job.id);
    for (const key of ['g', 'o', '\r']) {
      c.input(key);
      await sleep(150);
    }
    await w.sb.waitForState(job.id, ['running'], 5_000);
    assert.deepEqual(await statesOver(job.id, 2_000), ['running'], 'working behind the emptied box');
    await waitUntil('the work done', () => lines(join(job.cwd, 'done')) === 1);
    assert.equal((await waitingFor(job.id)).lifecycle.waitingReason, 'pattern', 'the box drawn again after the work');
  });

  it('a question printed in the middle of scrolling output is not one; the real question after it is', async () => {
    // A file shown with the question in it, more output after, silent work, then the program's own question.
    const script = `i=0; while [ $i -lt 30 ]; do echo "line $i"; [ $i = 10 ] && echo 'Do you want to proceed? (y/n)'; i=$((i+1)); done
      sleep 4; printf 'Apply the changes? (y/n) '; read x; echo "got $x"; sleep 600`;
    const job = await w.sb.start(['sh', '-c', script], { settings: { waitingPattern: '\\(y/n\\)' } });
    assert.deepEqual(await statesOver(job.id, 2_400), ['running'], 'the printed question asks nothing');
    assert.equal((await waitingFor(job.id)).lifecycle.waitingReason, 'pattern', 'the real question');
    const c = await attach(job.id);
    c.input('y\r');
    await waitUntil('answered', async () => (await w.sb.store.readOutput(job.id)).toString().includes('got y'));
    await w.sb.waitForState(job.id, ['running'], 5_000);
  });

  /** A program that asks `Proceed? [y/n]`, then asks again drawn by `again` (escape sequences first), the cursor then parked on the last row. */
  async function askedAgain(again: string, where: string): Promise<void> {
    const ask = (at: string) => `printf '${at}Proceed? [y/n] \\033[24;1H'; dd bs=1 count=1 >/dev/null 2>&1; echo answered >> answers; sleep 2.5`;
    const script = `stty -icanon min 1; ${ask('')}; ${ask(again)}; sleep 600`;
    const job = await w.sb.start(['sh', '-c', script], { settings: { waitingPattern: 'Proceed\\? \\[y/n\\]' } });
    const c = await attach(job.id);
    const answers = join(job.cwd, 'answers');
    for (const asked of ['first', where]) {
      assert.equal((await waitingFor(job.id)).lifecycle.waitingReason, 'pattern', `asked ${asked}`);
      const before = lines(answers);
      c.input('y');
      await waitUntil('the answer read', () => lines(answers) > before);
      await sleep(1_200); // the agent works on the answer
      assert.equal((await w.sb.store.read(job.id)).lifecycle.state, 'running', `answered ${asked}`);
    }
  }

  it('the question asked again after a clear, the cursor moved away, is waiting', async () => {
    await askedAgain('\\033[2J\\033[6;10H', 'after a clear');
  });

  it('the question asked again in the alternate screen is waiting', async () => {
    await askedAgain('\\033[?1049h\\033[H\\033[3;4H', 'in the alternate screen');
  });

  it("aider's pattern with a real prompt_toolkit prompt: waiting at its prompt, running while it works, waiting again", async function () {
    // aider asks with prompt_toolkit; its built-in profile's pattern is '^> ?$'.
    if (spawnSync('python3', ['-c', 'import prompt_toolkit']).status !== 0) this.skip();
    const program = `from prompt_toolkit import prompt
import time
while True:
    text = prompt('> ')
    time.sleep(3)
    print('did ' + text)
    open('done', 'a').write(text + '\\n')`;
    const job = await w.sb.start(['python3', '-c', program], { settings: { waitingPattern: '^> ?$' } });
    assert.equal((await waitingFor(job.id)).lifecycle.waitingReason, 'pattern', 'at its prompt');
    const c = await attach(job.id);
    for (const key of [...'fix it', '\r']) {
      c.input(key);
      await sleep(60);
    }
    await w.sb.waitForState(job.id, ['running'], 5_000);
    assert.deepEqual(await statesOver(job.id, 1_500), ['running'], 'working on the answer');
    await waitUntil('the work done', () => lines(join(job.cwd, 'done')) === 1);
    assert.equal((await waitingFor(job.id)).lifecycle.waitingReason, 'pattern', 'at its prompt again');
  });
});
