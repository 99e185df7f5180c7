/**
 * A prompt to type waits for the agent's asking at its cursor (bug 99), but a wait the detector's
 * rule reads meanwhile is held back only for a grace (5 s), then raised (the person is told),
 * the prompt no longer typed by itself, the person told (bug 99's reviews). Before, any question not asked at the cursor — a
 * question then a newline, a clock parked below it, a dialog above its `choice: ` line, a spinner
 * on the question's own line — was neither given the prompt nor recorded as a wait: the agent
 * waited with nobody told. Real worker, real PTY; the person's answer is what the agent reads.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkerClient } from '../../../../src/core/protocol/client';
import { useWorkerSandbox, waitUntil } from './fixtures';

const PROMPT = 'the task, typed only where it is asked for';
/** The demo profile's pattern. */
const YES_NO = '\\[y/n\\]\\s*$';
/** The detector's grace for the first asking (waiting.ts). */
const GRACE_MS = 5_000;
/** Keeps what it read in got.txt. */
const KEEP = `printf '%s' "$line" > got.txt`;
/**
 * Reads a line while a subshell redraws something every 0.1 s (`draw`, given `i`), 15 s at most: one
 * read waits, since reads cut by a timeout lost what they had read (CI: the answer came out empty).
 * Its sleep is ended with it, so the agent leaves nothing running.
 */
const redrawing = (draw: string) =>
  `(trap 'kill $t 2>/dev/null; exit' TERM; for i in $(seq 1 150); do ${draw}; sleep 0.1 & t=$!; wait $t; done) & line=; IFS= read -r -t 15 line; kill $! 2>/dev/null; wait; ${KEEP}`;

describe('AgentWorker: a question not asked at the cursor while a prompt waits to be typed', function () {
  this.timeout(60_000);
  const ctx = useWorkerSandbox();

  /** The wait is recorded within the grace, nothing is typed, and the person's answer is what the agent reads. */
  async function personIsTold(script: string): Promise<void> {
    const sb = ctx.sb;
    const job = await sb.start(['bash', '-c', script], { settings: { waitingPattern: YES_NO, typedPrompt: PROMPT } });
    const startedAt = Date.now();
    const waiting = await sb.waitForState(job.id, ['waiting', 'completed', 'failed'], GRACE_MS + 5_000);
    assert.deepEqual([waiting.lifecycle.state, waiting.lifecycle.waitingReason], ['waiting', 'pattern'], 'the person is told');
    assert.ok(Date.now() - startedAt < GRACE_MS + 2_500, `recorded within the grace (${Date.now() - startedAt} ms)`);
    assert.equal(existsSync(join(sb.cwd, 'got.txt')), false, 'nothing typed at a question not asked at the cursor');
    const log = readFileSync(join(sb.store.jobDir(job.id), 'worker.log'), 'utf8');
    assert.match(log, /the prompt was not typed in \(the agent waited for you before it asked for it at its cursor\)/);
    assert.match(waiting.lifecycle.detail ?? '', /^waiting \(pattern\) · the prompt was not typed in/, 'the detail tells the person');
    const c = await WorkerClient.connect(sb.store, job.id);
    ctx.clients.push(c);
    await c.hello();
    await c.send('y');
    await waitUntil('its answer read', () => existsSync(join(sb.cwd, 'got.txt')));
    assert.equal(readFileSync(join(sb.cwd, 'got.txt'), 'utf8'), 'y', 'the person answered it');
    assert.equal((await sb.waitForState(job.id, ['completed', 'failed'])).lifecycle.state, 'completed');
  }

  it('a question, then a newline, read on the next line (echo; read)', async () => {
    await personIsTold(`echo 'Proceed? [y/n]'; line=; IFS= read -r -t 15 line; ${KEEP}`);
  });

  it('a clock redrawn on the line below the question, the cursor left there', async () => {
    await personIsTold(`printf 'Proceed? [y/n]\\n'; ${redrawing(`printf '\\r12:00:%02d' "$((i % 60))"`)}`);
  });

  it('a question over five option lines, the cursor at its `choice: `', async () => {
    await personIsTold(`printf 'Proceed? [y/n]\\n  1. yes\\n  2. no\\n  3. always\\n  4. never\\n  5. explain\\nchoice: '; line=; IFS= read -r -t 15 line; ${KEEP}`);
  });

  it('a spinner on the question\'s own line (it never settles)', async () => {
    await personIsTold(`s='|/-\\\\'; ${redrawing(`printf '\\r%s Proceed? [y/n] ' "\${s:i%4:1}"`)}`);
  });
});
