/**
 * Screen fidelity: the same real programs at 80×24 under Paddock and under
 * tmux; `paddock screen` must equal `tmux capture-pane -p` line for line
 * (trailing spaces and trailing empty lines trimmed on both sides).
 */
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { screenCommand } from '../../../src/cli/commands/screen';
import { sendCommand } from '../../../src/cli/commands/send';
import { Sandbox, TmuxPane, runCli, sleep, stable, trimLines, waitUntil } from '../core/worker/fixtures';

describe('paddock screen vs tmux', function () {
  this.timeout(60_000);
  let sb: Sandbox;
  let tmux: TmuxPane | undefined;
  beforeEach(() => {
    sb = new Sandbox({ LESSHISTFILE: '-', PS1: '$ ', INPUTRC: '/dev/null', PYTHONSTARTUP: '' });
    const lines = Array.from({ length: 60 }, (_, i) => `line ${i + 1}: the quick brown fox jumps over the lazy dog ${'#'.repeat(i % 7)}`);
    writeFileSync(join(sb.cwd, 'file.txt'), `${lines.join('\n')}\n`);
  });
  afterEach(() => {
    tmux?.dispose();
    tmux = undefined;
    sb.dispose();
  });

  async function paddockScreen(id: string): Promise<string[]> {
    const r = await runCli(screenCommand, [id], sb.env);
    assert.equal(r.code, 0);
    return trimLines(r.stdout.split('\n'));
  }

  /** Sends `steps` once both show `prompt` (input typed before a REPL starts may be flushed by readline). */
  async function compare(command: string[], steps: (string | number)[] = [], prompt?: string): Promise<void> {
    const job = await sb.start(command);
    tmux = new TmuxPane(command, sb.env, sb.cwd);
    if (prompt) {
      const pane = tmux;
      await waitUntil('the prompt under paddock', async () => (await paddockScreen(job.id)).some((l) => l.startsWith(prompt)));
      await waitUntil('the prompt under tmux', () => pane.capture().some((l) => l.startsWith(prompt)));
    }
    for (const step of steps) {
      if (typeof step === 'number') {
        await sleep(step);
        continue;
      }
      await runCli(sendCommand, [job.id, step], sb.env);
      tmux.sendLine(step);
      // One command at a time: let both settle before typing the next.
      const pane = tmux;
      await Promise.all([stable(() => paddockScreen(job.id), 2, 100), stable(() => pane.capture(), 2, 100)]);
    }
    const ours = await stable(() => paddockScreen(job.id));
    const theirs = await stable(() => tmux!.capture());
    assert.deepEqual(ours, theirs);
  }

  it('vim on a file', async () => {
    await compare(['vim', '--clean', '-n', 'file.txt']);
  });

  it('less on a file', async () => {
    await compare(['less', 'file.txt']);
  });

  it('top -b -n1 output (captured once, replayed by both)', async () => {
    const top = execFileSync('top', ['-b', '-n1', '-w', '80']).toString();
    writeFileSync(join(sb.cwd, 'top.txt'), top);
    await compare(['sh', '-c', 'cat top.txt; exec sleep 600']);
  });

  it('an interactive bash with colours', async () => {
    await compare(['env', 'PS1=$ ', 'bash', '--norc', '--noprofile', '-i'], [
      "printf '\\033[31mred\\033[0m \\033[1;32mbold green\\033[0m \\033[44mblue bg\\033[0m\\n'",
      'ls --color=always /',
      'seq 1 15',
    ], '$');
  });

  it('a python3 REPL', async () => {
    await compare(['python3', '-q'], ['x = 6 * 7', 'print(x)', 'for i in range(12): print(i, i * i)', ''], '>>>');
  });
});
