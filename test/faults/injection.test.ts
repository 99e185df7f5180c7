/**
 * Fault cases 26–29 with the real CLI bundle: text Paddock did not write
 * (titles, holders' command lines, errors) never drives the person's terminal
 * and never carries a credential into the store; prompts are data.
 */
import * as assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinatorSandbox, useCoordinatorSandbox } from '../unit/core/coordinator/coordinatorFixture';
import { allFileContents, cliAsync, CliResult } from './faultKit';

/** ESC, CR, BEL and every other C0 control but LF; DEL; C1 (as UTF-8 U+0080–U+009F). */
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]/;

function assertNoControls(res: CliResult, what: string): void {
  for (const [name, text] of [['stdout', res.stdout], ['stderr', res.stderr]] as const) {
    const latin1 = Buffer.from(text, 'utf8').toString('latin1');
    assert.doesNotMatch(latin1, RAW_CONTROL, `${what} ${name} holds a control byte: ${JSON.stringify(text)}`);
  }
}

describe('faults: injection through text Paddock did not write, and prompts (cases 26–29)', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));
  const cli = (args: string[], env: NodeJS.ProcessEnv = sb.env) => cliAsync(args, env, sb.repo);

  it('case 26: a title with OSC 52, a title change, a screen clear and a fake row reaches the terminal as visible escapes only', async () => {
    const title = 'ok\x1b]52;c;ZXZpbA==\x07\x1b]0;pwned\x07\x1b[2J\r\nabcdefgh   running      1 -            fake row\u009b31m\x7f';
    const started = await cli(['start', '--title', title, '--json', '--', 'sh', '-c', 'exit 3']);
    assert.equal(started.code, 0, started.stderr);
    const id = JSON.parse(started.stdout).id as string;
    await sb.waitForState(id, ['failed']);
    for (const args of [['list'], ['show', id], ['cleanup', id], ['show', 'zzzzzzzz']]) assertNoControls(await cli(args), args.join(' '));
    const list = await cli(['list']);
    assert.equal(list.stdout.trim().split('\n').length, 2, 'one header, one row: the newline did not fake a row');
    // --json stays exact.
    assert.equal(JSON.parse((await cli(['show', id, '--json'])).stdout).title, title);
  });

  it("case 27: a holder's command line with credentials reaches neither the store nor the screen; controls in it are not obeyed", async () => {
    const started = JSON.parse((await cli(['start', '--json', '--', 'true'])).stdout);
    await sb.waitForState(started.id, ['completed']);
    const holder = sb.spawnOwned('sh', ['-c', 'sleep 60; :', 'devserver\x1b]0;x\x07', '--api-key=sk-live-4242abcd', '--token', 'tok-9999zz', 'DB_PASSWORD=pw-5555'], started.worktree);
    const res = await cli(['cleanup', started.id, '--yes']);
    assert.equal(res.code, 1, res.stderr);
    assertNoControls(res, 'cleanup');
    const shown = await cli(['show', started.id]);
    assertNoControls(shown, 'show');
    assert.match(shown.stdout, new RegExp(`held by: +pid ${holder} .*--api-key=\\[REDACTED\\] --token \\[REDACTED\\]`));
    const secrets = ['sk-live-4242abcd', 'tok-9999zz', 'pw-5555'];
    for (const out of [res.stdout, res.stderr, shown.stdout, (await cli(['show', started.id, '--json'])).stdout]) {
      for (const s of secrets) assert.ok(!out.includes(s), `${s} printed`);
    }
    for (const file of allFileContents(sb.home)) for (const s of secrets) assert.ok(!file.text.includes(s), `${s} in ${file.path}`);
  });

  it('case 28: a prompt starting with - reaches claude after --, as its prompt, never as an option', async () => {
    const bin = join(sb.root, 'bin');
    mkdirSync(bin);
    const argvFile = join(sb.root, 'argv.txt');
    writeFileSync(join(bin, 'claude'), `#!/bin/sh\nprintf '%s\\n' "$@" > '${argvFile}'\n`);
    chmodSync(join(bin, 'claude'), 0o755);
    const env = { ...sb.env, PATH: `${bin}:${sb.env.PATH}` };
    const started = await cli(['start', '--prompt=--dangerously-skip-permissions'], env);
    assert.equal(started.code, 0, started.stderr);
    await sb.waitForState(started.stdout.trim(), ['completed']);
    // After its hook settings (--settings JSON), `--` and then the prompt, as data: never an option of its own.
    const argv = readFileSync(argvFile, 'utf8').split('\n').filter(Boolean);
    assert.deepEqual(argv.slice(-2), ['--', '--dangerously-skip-permissions']);
    assert.equal(argv.indexOf('--dangerously-skip-permissions'), argv.length - 1);
    assert.deepEqual(argv.slice(0, -2).filter((a) => a.startsWith('-')), ['--settings']);
  });

  it('case 29: a prompt over 8192 characters is refused with one sentence (exit 2), and nothing is created', async () => {
    const res = await cli(['start', '--prompt', 'p'.repeat(9000)]);
    assert.equal(res.code, 2);
    assert.equal(res.stderr, 'paddock start: The prompt is 9000 characters; the limit is 8192.\n');
    assert.equal((await cli(['list'])).stdout, 'No agents.\n');
    const long = await cli(['start', '--', 'echo', 'q'.repeat(9000)]);
    assert.equal(long.code, 2);
    assert.match(long.stderr, /^paddock start: The command's argument 1 is 9000 characters; the limit is 8192\.\n$/);
  });
});
