/**
 * Bug 197: `paddock cleanup ID` asked on a terminal named no linked worktree outside the agent's
 * whose git data the cleanup archives and removes; the window's modal did since bug 178. The real
 * CLI (dist/cli.js) is driven in a real terminal and answered.
 */
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as pty from 'node-pty';
import { CLI_SCRIPT, CoordinatorSandbox, git, runCli, useCoordinatorSandbox } from '../core/coordinator/coordinatorFixture';

const WHO = ['-c', 'user.name=A', '-c', 'user.email=a@b.c'];

describe('CLI: cleanup asked on a terminal names the outside worktrees it breaks (bug 197)', function () {
  this.timeout(90_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));
  const terms: pty.IPty[] = [];
  afterEach(() => {
    for (const t of terms.splice(0)) t.kill('SIGKILL');
  });

  /** `paddock cleanup ID` in a real terminal: the question it prints, then `answer` typed, and its exit code. */
  async function askedAndAnswered(id: string, answer: string): Promise<{ question: string; output: string; code: number }> {
    const term = pty.spawn(process.execPath, [CLI_SCRIPT, 'cleanup', id], { cols: 80, rows: 24, cwd: sb.repo, env: sb.env as Record<string, string> });
    terms.push(term);
    let out = '';
    term.onData((d) => (out += d));
    const exited = new Promise<number>((resolve) => term.onExit((e) => resolve(e.exitCode)));
    const deadline = Date.now() + 30_000;
    while (!out.includes('[y/N]')) {
      if (Date.now() > deadline) throw new Error(`no question within 30 s: ${out}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const question = out.replace(/\r\n/g, '\n');
    term.write(`${answer}\r`);
    const code = await exited;
    return { question, output: out.replace(/\r\n/g, '\n'), code };
  }

  it("names a nested repository's linked worktree outside the agent's before the person answers, as the window does", async () => {
    const started = await runCli(['start', '--json', '--', 'true'], { cwd: sb.repo, env: sb.env });
    assert.equal(started.code, 0, started.stderr);
    const job = JSON.parse(started.stdout) as { id: string; worktree: string };
    await sb.waitEnded(job.id);

    const plain = await askedAndAnswered(job.id, 'n');
    assert.doesNotMatch(plain.question, /git stops working/, 'nothing to name without one');
    // The look may take a while (git in every nested repository): it is said first, never a silent wait.
    assert.ok(plain.question.includes("Looking for linked worktrees outside the agent's worktree…\nClean up agent "), plain.question);
    assert.equal(plain.code, 1);

    const inner = join(job.worktree, 'inner');
    git(job.worktree, 'init', '-q', '-b', 'main', 'inner');
    git(inner, ...WHO, 'commit', '-q', '--allow-empty', '-m', 'x');
    const outside = join(sb.root, 'outside');
    git(inner, 'worktree', 'add', '-q', '-b', 'side', outside);

    const asked = await askedAndAnswered(job.id, 'n');
    const line = `• ${outside} (on side), a linked worktree of inner in the agent's worktree: its files stay, its git data (HEAD, index, commits) is archived with the worktree, and git fails there until paddock restore ${job.id} brings it back`;
    assert.ok(asked.question.includes(`\nKept, but git stops working there until paddock restore ${job.id}:\n${line}\nClean up agent ${job.id}? [y/N] `), asked.question);
    assert.equal(asked.code, 1, asked.output);
    assert.match(asked.output, /Nothing was changed/);
    assert.ok(existsSync(job.worktree), 'a "no" removes nothing');
    assert.equal(git(outside, 'rev-parse', '--abbrev-ref', 'HEAD').trim(), 'side', 'git still works there');

    const agreed = await askedAndAnswered(job.id, 'y');
    assert.equal(agreed.code, 0, agreed.output);
    assert.equal(existsSync(job.worktree), false, 'agreed knowing, the cleanup ran');
  });
});
