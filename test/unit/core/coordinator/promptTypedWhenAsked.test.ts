/**
 * The prompt the argv does not carry is typed when the agent asks for it (bug 99): the profile's
 * waiting pattern on the line where the cursor waits, that line settled — never at the same words
 * elsewhere on screen. Before the fix the first match anywhere on screen typed it: a bare `>` line
 * in aider's restored history (printed before it asks anything) took the prompt while the history
 * still printed, and the question aider asked next read it as its answer. Real worker, real PTY,
 * aider's own profile (`^> ?$`); each fake aider keeps what it read for each of its questions.
 */
import * as assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinatorSandbox, useCoordinatorSandbox } from './coordinatorFixture';

const PROMPT = 'fix the parser; keep "quotes" — naïve ✓';

/** Its `> ` prompt, then what it reads there kept in `got-<id>.txt` (5 s at most). */
const ASK = `printf '> '
line=
IFS= read -r -t 5 line
printf '%s' "$line" > "got-$PADDOCK_AGENT_ID.txt"`;

/** What was typed before it asked (a line, 1.5 s at most) kept in `<name>-<id>.txt`. */
const keepTyped = (name: string) => `typed=
IFS= read -r -t 1.5 typed
printf '%s' "$typed" > "${name}-$PADDOCK_AGENT_ID.txt"`;

/** Like aider restoring a chat: a history with a bare `>` line, a pause, a yes/no question, then its prompt. */
const HISTORY_THEN_QUESTION = `#!/bin/bash
echo "Aider v0.0 (fake)"
printf '> fix the parser\\n> \\n> and its tests\\nRestored the chat history.\\n'
sleep 1.5
printf 'Add .aider* to .gitignore (recommended)? (Y)es/(N)o [Yes]: '
${keepTyped('answer')}
echo
${ASK}
`;

/**
 * Prompt-like lines in its output, the cursor on each for a moment (0.1 s: less than the quiet
 * interval, at varying points of the detector's look), then more output; its prompt later.
 */
const PROMPT_LIKE_OUTPUT = `#!/bin/bash
echo 'Running the tests'
for i in 1 2 3 4 5 6 7 8; do
  printf 'ok %s\\n' "$i"
  sleep 0.0$((RANDOM % 9 + 1))
  printf '> '
  sleep 0.1
  echo
done
printf 'working: '
${keepTyped('early')}
echo
${ASK}
`;

/** Its prompt with a clock redrawn on the line below (the cursor put back after each tick, as prompt_toolkit does). */
const CLOCK_BELOW = `#!/bin/bash
printf '> '
# The clock is redrawn by a subshell while one read waits: reads cut by a timeout lost what they had read (CI: 'ix the parser').
# Its sleep is ended with it, so the agent leaves nothing running.
(trap 'kill $t 2>/dev/null; exit' TERM; for i in $(seq 1 50); do printf '\\0337\\033[B\\r12:00:%02d\\0338' "$i"; sleep 0.1 & t=$!; wait $t; done) &
line=
IFS= read -r -t 5 line
kill $! 2>/dev/null; wait
printf '%s' "$line" > "got-$PADDOCK_AGENT_ID.txt"
`;

/** Its prompt over a dialog of six lines of help, the cursor put back on the prompt's row. */
const DIALOG_BELOW = `#!/bin/bash
printf '> \\n  Enter: send\\n  /add: add files\\n  /drop: drop files\\n  /help: more\\n  Ctrl-D: quit\\n\\033[6A\\r\\033[2C'
line=
IFS= read -r -t 5 line
printf '%s' "$line" > "got-$PADDOCK_AGENT_ID.txt"
`;

describe('Coordinator: a typed prompt answers the agent\'s asking, not its words on screen', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  let coordinator: ReturnType<CoordinatorSandbox['coordinator']> | undefined;
  useCoordinatorSandbox((fresh) => {
    sb = fresh;
    coordinator = undefined;
  });

  /** Runs `script` as aider with PROMPT to type; what it read, by name, once it ended. */
  async function runAider(script: string, names: string[]): Promise<{ read: Record<string, string>; timeline: string }> {
    const bin = join(sb.root, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'aider'), script);
    chmodSync(join(bin, 'aider'), 0o755);
    sb.env.PATH = `${bin}:${sb.env.PATH}`;
    coordinator ??= sb.coordinator();
    const job = await coordinator.start({ repo: sb.repo, profile: 'aider', prompt: PROMPT });
    const done = await sb.waitEnded(job.id);
    assert.equal(done.lifecycle.state, 'completed', done.lifecycle.detail ?? '');
    const read: Record<string, string> = {};
    for (const name of names) read[name] = readFileSync(join(job.worktree!, `${name}-${job.id}.txt`), 'utf8');
    return { read, timeline: readFileSync(join(sb.store.jobDir(job.id), 'timeline.jsonl'), 'utf8') };
  }

  it('a bare `>` in the history it prints first is not its prompt: the question after it gets nothing, its prompt gets the text', async () => {
    const { read, timeline } = await runAider(HISTORY_THEN_QUESTION, ['answer', 'got']);
    assert.deepEqual(read, { answer: '', got: PROMPT }, 'the yes/no question read nothing; the `> ` prompt read the prompt');
    assert.doesNotMatch(timeline, /waiting/, 'neither the history nor the prompt it was typed at was recorded as a wait');
  });

  it('a prompt-like line in its output, with more output after it, is never typed at', async () => {
    const { read, timeline } = await runAider(PROMPT_LIKE_OUTPUT, ['early', 'got']);
    assert.deepEqual(read, { early: '', got: PROMPT });
    assert.doesNotMatch(timeline, /waiting/);
  });

  it('its prompt with a clock redrawn below it, or a dialog of more than four lines under it, still gets the text', async () => {
    for (const script of [CLOCK_BELOW, DIALOG_BELOW]) {
      const { read, timeline } = await runAider(script, ['got']);
      assert.deepEqual(read, { got: PROMPT }, script);
      assert.doesNotMatch(timeline, /waiting/);
    }
  });
});
