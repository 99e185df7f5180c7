/**
 * The typed prompt (typedPrompt.ts) answers the agent's asking as the waiting detector judges it
 * (bug 99): the pattern on the cursor's line, settled. Real worker, real PTY. These are the screens
 * where the detector reads the agent waiting and the prompt was typed before the fix; a judgement
 * by the bytes the agent wrote (a fix tried and reverted) lost them: a question drawn while a
 * viewer's resize makes the agent redraw, one drawn in pieces by cursor moves, one ending a line
 * wider than 1,024 columns. Each still gets the prompt, and no wait is recorded for it.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkerClient } from '../../../../src/core/protocol/client';
import { useWorkerSandbox, waitUntil } from './fixtures';

const PROMPT = 'fix the parser; keep "quotes" — naïve ✓';
/** The demo profile's pattern. */
const YES_NO = '\\[y/n\\]\\s*$';
/** What it reads at its question, kept in got.txt (5 s at most). */
const READ = `line=; IFS= read -r -t 5 line; printf '%s' "$line" > got.txt`;

describe('AgentWorker: the typed prompt at the agent\'s asking', function () {
  this.timeout(60_000);
  const ctx = useWorkerSandbox();

  async function runWithPrompt(script: string, during?: (id: string) => Promise<void>): Promise<void> {
    const sb = ctx.sb;
    const job = await sb.start(['bash', '-c', script], { settings: { waitingPattern: YES_NO, typedPrompt: PROMPT } });
    await during?.(job.id);
    const done = await sb.waitForState(job.id, ['completed', 'failed'], 20_000);
    assert.equal(done.lifecycle.state, 'completed', done.lifecycle.detail ?? '');
    assert.equal(readFileSync(join(sb.cwd, 'got.txt'), 'utf8'), PROMPT, 'typed at its question');
    const timeline = readFileSync(join(sb.store.jobDir(job.id), 'timeline.jsonl'), 'utf8');
    assert.doesNotMatch(timeline, /waiting/, 'the question it was typed at was never recorded as a wait');
  }

  it('a question drawn in the redraw a viewer\'s resize causes', async () => {
    const script = `trap 'printf "\\033[2J\\033[HProceed? [y/n] "; touch asked' WINCH; echo starting
for i in $(seq 1 100); do [ -e asked ] && break; sleep 0.1; done; ${READ}`;
    await runWithPrompt(script, async (id) => {
      const c = await WorkerClient.connect(ctx.sb.store, id);
      ctx.clients.push(c);
      await c.attach({ cols: 100, rows: 30, readOnly: false });
      await waitUntil('the redraw', () => existsSync(join(ctx.sb.cwd, 'asked')));
    });
  });

  it('a question drawn in pieces by cursor moves', async () => {
    await runWithPrompt(`printf 'Apply the edit?\\n\\033[2;10H[y/n] '; sleep 0.05; printf '\\033[2;1HProceed? '; ${READ}`);
  });

  it('a question ending a line wider than 1,024 columns', async () => {
    await runWithPrompt(`printf '%s Proceed? [y/n] ' "$(printf 'x%.0s' $(seq 1 1100))"; ${READ}`);
  });
});
