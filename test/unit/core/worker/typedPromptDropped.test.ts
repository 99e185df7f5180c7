/**
 * The prompt the argv does not carry is typed at the agent's asking at its cursor only while the
 * person has neither been asked nor typed (bug 99's second review). Before, once a held wait was
 * raised, the prompt stayed pending with no end: after the person answered, the next question
 * asked at the cursor silently got the task (never recorded as a wait); and the agent's next `> `
 * got the task a second time after the person, told, had typed it themselves. Now it is dropped,
 * the person told (worker.log, the timeline, the record's detail), its text kept in the record.
 * Real worker, real PTY; what the agent reads is what it kept.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkerClient } from '../../../../src/core/protocol/client';
import type { JobRecord } from '../../../../src/core/store/schema';
import { sleep, useWorkerSandbox, waitUntil } from './fixtures';

const PROMPT = 'the task, typed only where it is asked for';
/** The demo profile's pattern, and aider's. */
const YES_NO = '\\[y/n\\]\\s*$';
const AIDER = '^> ?$';

describe('AgentWorker: a prompt not typed once the person was asked or typed first', function () {
  this.timeout(60_000);
  const ctx = useWorkerSandbox();

  async function send(id: string, text: string): Promise<void> {
    const c = await WorkerClient.connect(ctx.sb.store, id);
    ctx.clients.push(c);
    await c.hello();
    await c.send(text);
  }

  /** Dropped, and said so: in worker.log, the timeline and the detail; the text still in the record. */
  async function personWasTold(job: JobRecord, why: RegExp): Promise<void> {
    const sb = ctx.sb;
    const log = readFileSync(join(sb.store.jobDir(job.id), 'worker.log'), 'utf8');
    assert.match(log, /the prompt was not typed in/);
    assert.match(log, why);
    const timeline = await sb.store.readTimeline(job.id);
    assert.ok(timeline.some((e) => e.type === 'prompt-not-typed' && why.test(e.message ?? '')), 'a timeline entry says so');
    const record = await sb.store.read(job.id);
    assert.equal(record.settings.typedPrompt, PROMPT, 'its text is kept in the record');
  }

  it('a wait raised while it was pending: a later question asked at the cursor is the person\'s, recorded as a wait', async () => {
    const sb = ctx.sb;
    const script = `echo 'Proceed? [y/n]'; IFS= read -r -t 20 a; printf '%s' "$a" > first.txt; echo ok; sleep 2; printf 'Delete the old branch? [y/n] '; b=; IFS= read -r -t 20 b; printf '%s' "$b" > second.txt`;
    const job = await sb.start(['bash', '-c', script], { settings: { waitingPattern: YES_NO, typedPrompt: PROMPT } });
    const asked = await sb.waitForState(job.id, ['waiting', 'completed', 'failed'], 10_000);
    assert.equal(asked.lifecycle.state, 'waiting');
    await send(job.id, 'y');
    await waitUntil('the first answer read', () => existsSync(join(sb.cwd, 'first.txt')));
    // It works 2 s first: its running is recorded (flips are written at most once a second, the latest winning).
    const waits = async () => (await sb.store.readTimeline(job.id)).filter((e) => e.type === 'transition' && e.to === 'waiting').length;
    await waitUntil('a second wait recorded', async () => (await waits()) >= 2 || existsSync(join(sb.cwd, 'second.txt')));
    const second = await sb.store.read(job.id);
    assert.equal(existsSync(join(sb.cwd, 'second.txt')) ? readFileSync(join(sb.cwd, 'second.txt'), 'utf8') : '<none>', '<none>', 'the second question was not answered with the prompt');
    assert.deepEqual([second.lifecycle.state, second.lifecycle.waitingReason], ['waiting', 'pattern'], 'the second question is a wait');
    assert.match(second.lifecycle.detail ?? '', /^waiting \(pattern\) · the prompt was not typed in .*send it yourself/);
    await send(job.id, 'n');
    assert.equal((await sb.waitForState(job.id, ['completed', 'failed'], 10_000)).lifecycle.state, 'completed');
    assert.deepEqual([readFileSync(join(sb.cwd, 'first.txt'), 'utf8'), readFileSync(join(sb.cwd, 'second.txt'), 'utf8')], ['y', 'n']);
    await personWasTold(job, /waited for you before it asked for it at its cursor/);
  });

  it('the person typed the task before the agent asked at its cursor: the agent\'s next `> ` does not get it again', async () => {
    const sb = ctx.sb;
    const script = `printf '>\\n'; IFS= read -r -t 20 line; printf '%s\\n' "$line" >> got.txt; echo working; sleep 0.5; printf '> '; l2=; IFS= read -r -t 3 l2; printf '%s\\n' "$l2" >> got.txt`;
    const job = await sb.start(['bash', '-c', script], { settings: { waitingPattern: AIDER, typedPrompt: PROMPT } });
    await sb.waitForState(job.id, ['running'], 5_000);
    await sleep(500); // its `>`, then the cursor on the line below: within the grace, not yet a wait
    await send(job.id, 'my own task');
    const done = await sb.waitForState(job.id, ['completed', 'failed'], 20_000);
    assert.equal(done.lifecycle.state, 'completed');
    assert.equal(readFileSync(join(sb.cwd, 'got.txt'), 'utf8'), 'my own task\n\n', 'the task typed once, by the person');
    await personWasTold(job, /the person typed into the agent/);
  });

  it('a viewer\'s terminal replies and arrow keys are not the person typing: the prompt is still typed at the asking', async () => {
    const sb = ctx.sb;
    const script = `echo starting; for i in $(seq 1 50); do [ -e seen ] && break; sleep 0.1; done; printf 'Proceed? [y/n] '; line=; IFS= read -r -t 5 line; printf '%s' "$line" > got.txt`;
    const job = await sb.start(['bash', '-c', script], { settings: { waitingPattern: YES_NO, typedPrompt: PROMPT } });
    await sb.waitForState(job.id, ['running'], 5_000);
    const c = await WorkerClient.connect(sb.store, job.id);
    ctx.clients.push(c);
    await c.attach({ cols: 100, rows: 30, readOnly: false });
    c.input('\x1b[?1;2c\x1b[I\x1b]11;rgb:0000/0000/0000\x1b\\\x1b[A'); // device attributes, focus in, background colour, an arrow key
    await sleep(300);
    writeFileSync(join(sb.cwd, 'seen'), '');
    assert.equal((await sb.waitForState(job.id, ['completed', 'failed'], 15_000)).lifecycle.state, 'completed');
    const got = readFileSync(join(sb.cwd, 'got.txt'), 'utf8');
    assert.ok(got.endsWith(PROMPT), `the prompt typed at its question (read ${JSON.stringify(got)})`);
  });
});
