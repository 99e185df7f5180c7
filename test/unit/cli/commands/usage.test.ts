/**
 * `paddock list` and `show` sample the figures when they are asked: the list's
 * columns, `show`'s lines and `show --json`'s `usage`, through the real bundle,
 * for a real agent named `claude` that writes a Claude Code transcript.
 */
import * as assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinatorSandbox, runCli, useCoordinatorSandbox } from '../../core/coordinator/coordinatorFixture';

const run = (sb: CoordinatorSandbox, env: NodeJS.ProcessEnv, args: string[]) => runCli(args, { cwd: sb.repo, env });

describe('CLI: list and show sample the per-agent figures', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  /** Starts a stand-in for Claude Code that writes `lines` as its session transcript in the documented place, holds 80 MB and idles. */
  async function startFakeClaude(lines: unknown[]) {
    const home = join(sb.root, 'person');
    const bin = join(sb.root, 'bin');
    mkdirSync(bin, { recursive: true });
    const fake = `#!${process.execPath}
const fs = require('fs'), path = require('path');
const dir = path.join(process.env.HOME, '.claude', 'projects', process.cwd().replace(/[^A-Za-z0-9]/g, '-'));
fs.mkdirSync(dir, { recursive: true });
fs.writeFileSync(path.join(dir, 'session.jsonl'), ${JSON.stringify(lines.map((l) => JSON.stringify(l) + '\n').join(''))});
const b = Buffer.alloc(80 * 1024 * 1024); for (let i = 0; i < b.length; i += 4096) b[i] = 1; globalThis.b = b;
fs.writeFileSync('ready', '');
setInterval(() => {}, 1000);
`;
    writeFileSync(join(bin, 'claude'), fake);
    chmodSync(join(bin, 'claude'), 0o755);
    const env = { ...sb.env, HOME: home, PATH: `${bin}:${sb.env.PATH}` };
    const c = sb.coordinator({}, { env });
    const started = await c.start({ repo: sb.repo, command: ['claude'] });
    await sb.waitFor(started.id, (j) => j.lifecycle.state === 'running');
    const ready = join(started.worktree!, 'ready');
    for (let i = 0; i < 200 && !existsSync(ready); i++) await new Promise((r) => setTimeout(r, 50));
    return { env, started };
  }

  const assistant = (id: string, usage: Record<string, number>, extra: Record<string, unknown> = {}) => ({ type: 'assistant', message: { id, usage }, ...extra });

  it('shows CPU, memory, disk, uptime and tokens of a live agent', async () => {
    const { env, started } = await startFakeClaude([assistant('msg_1', { input_tokens: 1200, cache_read_input_tokens: 800, output_tokens: 3000 })]);

    const listed = await run(sb, env, ['list']);
    assert.equal(listed.code, 0, listed.stderr);
    const [header, row] = listed.stdout.trim().split('\n');
    assert.match(header, /ID\s+STATE\s+GEN\s+CLEANUP\s+CPU\s+MEM\s+DISK\s+UP\s+TOKENS\s+TITLE/);
    const cells = row.split(/\s+/);
    assert.equal(cells[0], started.id);
    assert.equal(cells[1], 'running');
    assert.match(cells[4], /^\d+(\.\d)?%$/, `CPU column: ${row}`);
    assert.match(cells[5], /^\d+(\.\d)?MB$/, `memory column: ${row}`);
    assert.ok(Number(cells[5].replace('MB', '')) >= 80, `memory of the 80 MB agent: ${row}`);
    assert.match(cells[6], /^\d+(\.\d)?KB$/, `disk column: ${row}`);
    assert.match(cells[7], /^\d+s$/, `uptime column: ${row}`);
    assert.equal(cells[8], '5.0k', 'tokens: 2000 in + 3000 out');

    assert.ok(existsSync(join(sb.store.jobDir(started.id), 'usage-cursor.json')), 'where the transcript was read to is kept for the next command');

    const shown = await run(sb, env, ['show', started.id, '--json']);
    assert.equal(shown.code, 0, shown.stderr);
    const usage = JSON.parse(shown.stdout).usage;
    assert.deepEqual(Object.keys(usage).sort(), ['costUsd', 'cpuPercent', 'diskBytes', 'outputBytes', 'rssBytes', 'sampledAt', 'tokensIn', 'tokensOut']);
    assert.equal(usage.tokensIn, 2000);
    assert.equal(usage.tokensOut, 3000);
    assert.ok(usage.rssBytes >= 80 * 1024 * 1024);
    assert.ok(usage.diskBytes > 0);
    const human = await run(sb, env, ['show', started.id]);
    assert.match(human.stdout, /^tokens:\s+2\.0k in \/ 3\.0k out$/m);
    assert.match(human.stdout, /^memory:\s+\d+ MB$/m);

    const listedJson = JSON.parse((await run(sb, env, ['list', '--json'])).stdout);
    assert.equal(listedJson[0].usage.tokensOut, 3000, 'list --json carries usage');
  });

  it('one out-of-format transcript value: the other figures are still shown and recorded', async () => {
    const { env, started } = await startFakeClaude([
      assistant('good', { input_tokens: 10, output_tokens: 1 }),
      assistant('fraction', { input_tokens: 5000.5, output_tokens: 1 }, { costUSD: -1 }),
      // Two counts each valid, whose sum is past the largest safe integer: no tokens-in figure.
      assistant('huge1', { input_tokens: 5e15, output_tokens: 2 }),
      assistant('huge2', { input_tokens: 5e15, output_tokens: 3 }),
    ]);
    const shown = await run(sb, env, ['show', started.id, '--json']);
    assert.equal(shown.code, 0, shown.stderr);
    const usage = JSON.parse(shown.stdout).usage;
    assert.ok(usage && usage.rssBytes >= 80 * 1024 * 1024, `memory is shown: ${shown.stdout}`);
    assert.equal(usage.tokensIn, null, 'no figure rather than a guess');
    assert.equal(usage.tokensOut, 6, 'the valid lines\' output tokens');
    assert.equal(usage.costUsd, null);
    const recorded = (await sb.store.read(started.id)).usage;
    assert.ok(recorded && recorded.rssBytes !== null && recorded.diskBytes !== null, 'the figures are recorded');
  });

  it('figures that no longer hold are shown by no view: a stopped agent\'s memory, a removed worktree\'s size', async () => {
    const { env, started } = await startFakeClaude([assistant('m', { input_tokens: 1, output_tokens: 1 })]);
    const live = JSON.parse((await run(sb, env, ['list', '--json'])).stdout)[0].usage;
    assert.ok(live.rssBytes > 0 && live.cpuPercent !== null, 'sampled while it ran');
    const stopped = await run(sb, env, ['stop', started.id]);
    assert.equal(stopped.code, 0, stopped.stderr);
    await sb.waitFor(started.id, (j) => j.lifecycle.state === 'cancelled');
    const listed = JSON.parse((await run(sb, env, ['list', '--json'])).stdout)[0].usage;
    const shown = JSON.parse((await run(sb, env, ['show', started.id, '--json'])).stdout).usage;
    for (const [view, usage] of [['list', listed], ['show', shown]]) {
      assert.equal(usage.rssBytes, null, `${view}: no memory for an ended agent`);
      assert.equal(usage.cpuPercent, null, `${view}: no CPU for an ended agent`);
      assert.ok(usage.diskBytes > 0, `${view}: its worktree is still there`);
    }
    assert.doesNotMatch((await run(sb, env, ['list'])).stdout.split('\n')[1], /MB/, 'no memory column either');

    const cleaned = await run(sb, env, ['cleanup', started.id, '--yes']);
    assert.equal(cleaned.code, 0, cleaned.stderr);
    assert.ok(!existsSync(started.worktree!), 'the worktree is gone');
    assert.equal(JSON.parse((await run(sb, env, ['list', '--json'])).stdout)[0].usage.diskBytes, null, 'list: no size for a removed worktree');
    assert.equal(JSON.parse((await run(sb, env, ['show', started.id, '--json'])).stdout).usage.diskBytes, null, 'show: likewise');
  });

  it('an agent that ended before anyone looked: list shows its worktree\'s size', async () => {
    const c = sb.coordinator();
    const started = await c.start({ repo: sb.repo, command: [process.execPath, '-e', "require('fs').writeFileSync('out.bin', Buffer.alloc(2 * 1024 * 1024, 1))"] });
    await sb.waitFor(started.id, (j) => j.lifecycle.state === 'completed');
    assert.equal((await sb.store.read(started.id)).usage ?? null, null, 'never sampled while it ran');
    const listed = await run(sb, sb.env, ['list', '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    const usage = JSON.parse(listed.stdout)[0].usage;
    assert.ok(usage && usage.diskBytes >= 2 * 1024 * 1024, `disk of the ended agent's worktree: ${JSON.stringify(usage)}`);
  });
});
