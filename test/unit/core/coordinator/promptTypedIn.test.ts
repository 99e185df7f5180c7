/**
 * A start's prompt that the agent's argv does not carry (bug 58): aider's profile passes none (aider
 * exits after a `--message`), the shell's neither, nor does an explicit `-- COMMAND`. Before the fix
 * the prompt became the title only: the agent ran without its task, and an attempt of a group run
 * with `--profile aider` never got the task its siblings got. It is typed in once the agent runs.
 */
import * as assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PaddockError } from '../../../../src/core/common/errors';
import { CoordinatorSandbox, sleep, useCoordinatorSandbox } from './coordinatorFixture';

/** Shell quoting, `$(…)`, unicode and a leading dash: typed as they are, never run or read as options. */
const PROMPT = `-fix the "parser" bug; don't $(touch pwned) — naïve ✓`;

/**
 * Like aider: no prompt on its command line; a banner, first a question of its own (left unanswered
 * here after a second), then its `> ` prompt, which takes one line (5 s at most).
 */
const FAKE_AIDER = `#!/bin/bash
printf '%s\\n' "$#" > argc.txt
echo "Aider v0.0 (fake)"
printf 'Add .aider* to .gitignore (recommended)? (Y)es/(N)o [Yes]: '
answer=
IFS= read -r -t 1 answer
echo
printf '%s' "$answer" > "answer-$PADDOCK_AGENT_ID.txt"
printf '> '
line=
IFS= read -r -t 5 line
printf '%s' "$line" > "got-$PADDOCK_AGENT_ID.txt"
`;

/**
 * Like aider resumed (bug 63): `--restore-chat-history` prints the history first and asks only a
 * second later; what was typed before it asks is taken elsewhere (kept in `early-<id>.txt` here), as
 * a program that flushes its input or reads it as something else does.
 */
const FAKE_AIDER_RESUMED = `#!/bin/bash
if [ "$1" = --restore-chat-history ]; then
  echo "Restored the chat history (fake)"
  sleep 1
  early=
  while IFS= read -r -t 0.2 typed; do early="$early$typed"; done
  printf '%s' "$early" > "early-$PADDOCK_AGENT_ID.txt"
fi
printf '> '
line=
IFS= read -r -t 5 line
printf '%s' "$line" > "got-$PADDOCK_AGENT_ID.txt"
`;

describe('Coordinator: a prompt the argv does not carry is typed in', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  it('aider\'s profile gets its prompt typed at its own prompt, not at a question before it; a retry does not type it again', async () => {
    const bin = join(sb.root, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'aider'), FAKE_AIDER);
    chmodSync(join(bin, 'aider'), 0o755);
    sb.env.PATH = `${bin}:${sb.env.PATH}`;
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, profile: 'aider', prompt: PROMPT });
    assert.deepEqual(job.command, ['aider'], 'the prompt is no argument');
    const done = await sb.waitEnded(job.id);
    assert.equal(done.lifecycle.state, 'completed', done.lifecycle.detail ?? '');
    const worktree = job.worktree!;
    assert.equal(readFileSync(join(worktree, 'argc.txt'), 'utf8').trim(), '0', 'aider ran without arguments');
    const got = join(worktree, `got-${job.id}.txt`);
    assert.equal(readFileSync(got, 'utf8'), PROMPT, 'typed at its prompt');
    assert.equal(readFileSync(join(worktree, `answer-${job.id}.txt`), 'utf8'), '', 'not as the answer to its own question first');
    assert.ok(!existsSync(join(worktree, 'pwned')), 'nothing of the prompt ran');
    const timeline = readFileSync(join(sb.store.jobDir(job.id), 'timeline.jsonl'), 'utf8');
    assert.doesNotMatch(timeline, /waiting/, 'the prompt it was typed at was never recorded as a wait');

    writeFileSync(got, 'before the retry');
    await c.retry(job.id);
    const again = await sb.waitEnded(job.id);
    assert.equal(again.lifecycle.generation, 2);
    assert.equal(readFileSync(got, 'utf8'), '', 'the retry resumes its chat; the start\'s prompt is not typed again');
  });

  function installFakeAider(script: string): void {
    const bin = join(sb.root, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'aider'), script);
    chmodSync(join(bin, 'aider'), 0o755);
    sb.env.PATH = `${bin}:${sb.env.PATH}`;
  }

  // Bug 63: a retry's prompt for resume arguments without {prompt} was typed as soon as the agent
  // ran, before it asked: aider restoring its history took it as something else.
  it('a retry\'s prompt is typed at the agent\'s prompt, not as soon as it runs', async () => {
    installFakeAider(FAKE_AIDER_RESUMED);
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, profile: 'aider', prompt: 'the start' });
    assert.equal((await sb.waitEnded(job.id)).lifecycle.state, 'completed');
    const got = join(job.worktree!, `got-${job.id}.txt`);
    assert.equal(readFileSync(got, 'utf8'), 'the start');

    const retried = await c.retry(job.id, { prompt: PROMPT });
    assert.deepEqual(retried.command, ['aider', '--restore-chat-history'], 'the prompt is no argument');
    const again = await sb.waitEnded(job.id);
    assert.equal(again.lifecycle.generation, 2);
    assert.equal(readFileSync(join(job.worktree!, `early-${job.id}.txt`), 'utf8'), '', 'nothing typed before it asked');
    assert.equal(readFileSync(got, 'utf8'), PROMPT, 'typed at its prompt');
    assert.ok(!existsSync(join(job.worktree!, 'pwned')), 'nothing of the prompt ran');
    const timeline = readFileSync(join(sb.store.jobDir(job.id), 'timeline.jsonl'), 'utf8');
    assert.doesNotMatch(timeline, /waiting/, 'the prompt it was typed at was never recorded as a wait');

    // A later retry without a prompt types neither the start's nor the last retry's again.
    writeFileSync(got, 'before the second retry');
    await c.retry(job.id);
    await sb.waitFor(job.id, (j) => j.lifecycle.generation === 3 && j.lifecycle.state === 'completed');
    assert.equal(readFileSync(got, 'utf8'), '', 'no prompt typed');
  });

  // Bug 63: a retry waiting for a slot held the person's command (and Send Review) until its agent
  // ran, and gave up after a minute with the prompt lost. It is queued with its prompt, and its
  // launch types it in, whenever a slot frees.
  it('a queued retry returns at once and its launch types the prompt in at the agent\'s prompt', async () => {
    installFakeAider(FAKE_AIDER_RESUMED);
    const c = sb.coordinator({ maxConcurrent: 1 }, { tickMs: 50 });
    const job = await c.start({ repo: sb.repo, profile: 'aider' });
    await sb.waitEnded(job.id);
    const holder = await c.start({ repo: sb.repo, command: ['sleep', '60'] });
    await sb.waitForState(holder.id, ['running']);

    const queued = await Promise.race([c.retry(job.id, { prompt: PROMPT }), sleep(10_000).then(() => assert.fail('the retry waited for a slot'))]);
    assert.equal(queued.lifecycle.state, 'queued');
    assert.equal(queued.settings.typedPrompt, PROMPT, 'the queued generation keeps its prompt');
    await c.stop(holder.id, { force: true });
    const done = await sb.waitFor(job.id, (j) => j.lifecycle.generation === 2 && j.lifecycle.state === 'completed', 30_000);
    assert.equal(done.lifecycle.state, 'completed', done.lifecycle.detail ?? '');
    assert.equal(readFileSync(join(job.worktree!, `early-${job.id}.txt`), 'utf8'), '', 'nothing typed before it asked');
    assert.equal(readFileSync(join(job.worktree!, `got-${job.id}.txt`), 'utf8'), PROMPT, 'typed at its prompt');
  });

  // Bug 68: Paddock before bug 63's fix kept the start's prompt in settings.typedPrompt through a
  // retry (its worker typed it in generation 1 only, and the retry's own prompt was typed by the
  // retry command itself). A retry that version queued and this one launched typed the start's
  // prompt again.
  it('a retry queued by the previous version, whose record still carries the start\'s prompt, types nothing of it', async () => {
    installFakeAider(FAKE_AIDER_RESUMED);
    const c = sb.coordinator({ maxConcurrent: 1 }, { tickMs: 50 });
    const job = await c.start({ repo: sb.repo, profile: 'aider', prompt: 'the start' });
    assert.equal((await sb.waitEnded(job.id)).lifecycle.state, 'completed');
    const got = join(job.worktree!, `got-${job.id}.txt`);
    assert.equal(readFileSync(got, 'utf8'), 'the start');
    const holder = await c.start({ repo: sb.repo, command: ['sleep', '60'] });
    await sb.waitForState(holder.id, ['running']);
    const queued = await c.retry(job.id);
    assert.equal(queued.lifecycle.state, 'queued');

    // The queued record as the previous version wrote it: the start's prompt kept, no generation for it.
    const file = join(sb.store.jobDir(job.id), 'job.json');
    const record = JSON.parse(readFileSync(file, 'utf8'));
    record.settings.typedPrompt = 'the start';
    delete record.settings.typedPromptGeneration;
    writeFileSync(file, JSON.stringify(record, null, 2));
    assert.equal((await sb.store.read(job.id)).settings.typedPrompt, undefined, 'read as this version means it: no prompt of its own');

    writeFileSync(got, 'before the retry');
    await c.stop(holder.id, { force: true });
    const done = await sb.waitFor(job.id, (j) => j.lifecycle.generation === 2 && j.lifecycle.state === 'completed', 30_000);
    assert.equal(done.lifecycle.state, 'completed', done.lifecycle.detail ?? '');
    assert.equal(readFileSync(got, 'utf8'), '', 'the start\'s prompt was not typed again');
    assert.equal(readFileSync(join(job.worktree!, `early-${job.id}.txt`), 'utf8'), '');
  });

  it('an explicit command gets the prompt typed in; an over-long one, or one for an agent that takes it as an argument, is refused before anything is made', async () => {
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, prompt: PROMPT, command: ['bash', '-c', 'IFS= read -r -t 5 line; printf "%s" "$line" > got.txt'] });
    assert.equal((await sb.waitEnded(job.id)).lifecycle.state, 'completed');
    assert.equal(readFileSync(join(job.worktree!, 'got.txt'), 'utf8'), PROMPT);

    const before = (await sb.store.list()).length;
    await assert.rejects(c.start({ repo: sb.repo, prompt: 'x'.repeat(9000), command: ['true'] }), (e: unknown) => {
      assert.ok(e instanceof PaddockError && e.kind === 'usage', String(e));
      assert.equal(e.message, 'The prompt is 9000 characters; the limit is 8192.');
      return true;
    });
    // Claude Code and Codex take their prompt as an argument: typed in, it would land on their first
    // screen (Claude Code asks whether to trust the new worktree, and Enter says yes).
    for (const program of ['claude', '/usr/local/bin/codex']) {
      await assert.rejects(c.start({ repo: sb.repo, prompt: 'fix it', command: [program, '--model', 'x'] }), (e: unknown) => {
        assert.ok(e instanceof PaddockError && e.kind === 'usage', String(e));
        assert.equal(e.message, `'${program}' takes its prompt on its command line: put it in the command (after its own arguments and --), not in --prompt.`);
        return true;
      });
    }
    assert.equal((await sb.store.list()).length, before, 'no record was made');
  });
});
