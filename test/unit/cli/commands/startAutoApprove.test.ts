/**
 * `paddock start --auto-approve`: the profile's own flag reaches the real
 * program (a fake `claude` that prints the arguments it got), the record says
 * so, `show` and `list` show it, a retry keeps it; a profile without such a
 * flag is refused with one sentence and exit 2, before anything is created.
 */
import * as assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinatorSandbox, runCli, useCoordinatorSandbox } from '../../core/coordinator/coordinatorFixture';

/**
 * Prints its arguments (the hooks' JSON shortened) and exits when told to. Saves its conversation where
 * Claude Code does, so a retry has one to `--continue` (bug 58: without one, a retry starts afresh).
 */
const ARGV_CLAUDE = `#!/usr/bin/env node
const fs = require('node:fs');
const path = require('node:path');
const argv = process.argv.slice(2).map((a, i, all) => (all[i - 1] === '--settings' ? '<settings>' : a));
console.log('argv: ' + argv.join(' '));
const project = path.join(process.env.CLAUDE_CONFIG_DIR, 'projects', process.cwd().replace(/[^A-Za-z0-9]/g, '-'));
fs.mkdirSync(project, { recursive: true });
fs.appendFileSync(path.join(project, 'session.jsonl'), '{"type":"user"}\\n');
process.stdin.once('data', () => process.exit(0));
`;

describe('CLI: start --auto-approve', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  const cli = (args: string[]) => runCli(args, { cwd: sb.repo, env: sb.env });

  function fakeClaude(): void {
    const bin = join(sb.root, 'fakebin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'claude'), ARGV_CLAUDE);
    chmodSync(join(bin, 'claude'), 0o755);
    sb.env.PATH = `${bin}:${sb.env.PATH}`;
    sb.env.CLAUDE_CONFIG_DIR = join(sb.root, 'claude-config');
  }

  async function screenShows(id: string, text: RegExp): Promise<string> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const screen = await cli(['screen', id]);
      if (text.test(screen.stdout)) return screen.stdout;
      if (Date.now() > deadline) throw new Error(`the screen never showed ${text}: ${screen.stdout}${screen.stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it("passes the profile's flag to the agent, records it, shows it, and a retry keeps it", async () => {
    fakeClaude();
    const started = await cli(['start', '--json', '--profile', 'claude', '--prompt', 'tidy up', '--auto-approve']);
    assert.equal(started.code, 0, started.stderr);
    const record = JSON.parse(started.stdout);
    assert.equal(record.autoApprove, true);
    assert.deepEqual(record.command.slice(0, 4), ['claude', '--settings', record.command[2], '--dangerously-skip-permissions']);
    // What the program really got, from its own output.
    await screenShows(record.id, /argv: --settings <settings> --dangerously-skip-permissions -- tidy up/);

    const show = await cli(['show', record.id]);
    assert.match(show.stdout, /^auto-approve: +on: the agent acts without asking for approval$/m);
    const list = await cli(['list']);
    assert.match(list.stdout, new RegExp(`^${record.id} .*tidy up \\[auto-approve\\]$`, 'm'));

    assert.equal((await cli(['send', record.id, 'bye'])).code, 0);
    await sb.waitEnded(record.id);
    const retried = await cli(['retry', record.id]);
    assert.equal(retried.code, 0, retried.stderr);
    await screenShows(record.id, /argv: --settings <settings> --dangerously-skip-permissions --continue/);
    const again = JSON.parse((await cli(['show', record.id, '--json'])).stdout);
    assert.equal(again.lifecycle.generation, 2);
    assert.equal(again.autoApprove, true);
    await cli(['stop', record.id, '--force']);
  });

  it('`start -- claude …` matched to the claude profile gets the flag too; without --auto-approve nobody does', async () => {
    fakeClaude();
    const matched = JSON.parse((await cli(['start', '--json', '--auto-approve', '--', 'claude', '--model', 'x'])).stdout);
    assert.equal(matched.autoApprove, true);
    assert.deepEqual([matched.command[0], ...matched.command.slice(3)], ['claude', '--dangerously-skip-permissions', '--model', 'x']);
    const plain = JSON.parse((await cli(['start', '--json', '--profile', 'claude', '--prompt', 'p'])).stdout);
    assert.equal(plain.autoApprove, false);
    assert.ok(!plain.command.includes('--dangerously-skip-permissions'), plain.command.join(' '));
    assert.doesNotMatch((await cli(['show', plain.id])).stdout, /auto-approve/);
    await cli(['stop', matched.id, '--force']);
    await cli(['stop', plain.id, '--force']);
  });

  it('a profile without an auto-approve flag, or a command no profile knows, is refused in one sentence with exit 2', async () => {
    const shell = await cli(['start', '--profile', 'shell', '--auto-approve']);
    assert.equal(shell.code, 2);
    assert.equal(shell.stderr.trim().split('\n').length, 1, shell.stderr);
    assert.match(shell.stderr, /Profile 'shell' has no auto-approve flag/);
    const unknown = await cli(['start', '--auto-approve', '--', 'sleep', '5']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /'sleep' matches none/);
    assert.equal((await sb.store.list()).length, 0, 'nothing was created');
  });
});
