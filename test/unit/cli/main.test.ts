/** main.ts: every command's usage errors, and the one error formatter. */
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { COMMANDS, errorReport, runCli } from '../../../src/cli/main';
import { failure, usageError } from '../../../src/core/common/errors';

async function run(argv: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (c: Buffer) => out.push(c));
  stderr.on('data', (c: Buffer) => err.push(c));
  const code = await runCli(argv, { io: { stdout, stderr, stdin: new PassThrough() }, env, cwd: tmpdir() });
  return { code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() };
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** One line, one sentence: no sentence ends before the last character, no stack trace. */
function assertOneSentence(stderr: string, context: string): void {
  assert.ok(stderr.endsWith('\n'), context);
  const line = stderr.slice(0, -1);
  assert.ok(!line.includes('\n'), `one line (${context}): ${stderr}`);
  assert.match(line, /[.!?]$/, context);
  assert.doesNotMatch(line, /[.!?]\s+[A-Z]/, `one sentence (${context}): ${line}`);
}

describe('cli main', () => {
  let home: string;
  let env: NodeJS.ProcessEnv;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'paddock-main-'));
    env = { PATH: process.env.PATH, PADDOCK_HOME: home };
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('every command refuses an unknown option with exit 2 and one sentence that ends with its usage', async () => {
    for (const [verb, load] of Object.entries(COMMANDS)) {
      const { usage } = load();
      const r = await run([verb, '--no-such-flag'], env);
      assert.equal(r.code, 2, `${verb}: ${r.stderr}`);
      assert.equal(r.stdout, '');
      assertOneSentence(r.stderr, verb);
      assert.match(r.stderr, new RegExp(`^paddock ${verb}: Unknown option '--no-such-flag'; usage: ${escape(usage)}\\.\\n$`));
    }
  });

  it('every command names a missing or an extra argument in one sentence with exit 2', async () => {
    for (const [verb, load] of Object.entries(COMMANDS)) {
      const { usage } = load();
      // The first positional of the usage line (ID, waiting|running), if any: what is left without the [optional] parts.
      let bare = usage;
      while (/\[[^[\]]*\]/.test(bare)) bare = bare.replace(/\[[^[\]]*\](\.\.\.)?/g, '');
      const first = bare.split(/\s+/).slice(2).find((word) => word !== '');
      const args = first === undefined ? [verb, 'stray'] : [verb];
      const r = await run(args, env);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assertOneSentence(r.stderr, verb);
      assert.match(r.stderr, first === undefined ? /Unexpected argument 'stray'; usage: / : /Missing [A-Z]+; usage: /, `${verb}: ${r.stderr}`);
      assert.ok(r.stderr.includes(usage), `${verb} shows its usage`);
    }
    const extra = await run(['send', 'abcdef12', 'hi', 'there'], env);
    assert.equal(extra.code, 2);
    assert.match(extra.stderr, /^paddock send: Unexpected argument 'there'; usage: paddock send ID TEXT\.\n$/);
  });

  it('formats every error one way: usage and unknown agents exit 2, failures 1, anything else 1 without a stack', () => {
    assert.deepEqual(errorReport(usageError('Missing ID; usage: paddock show ID'), 'show', {}), { text: 'paddock show: Missing ID; usage: paddock show ID.\n', code: 2 });
    assert.equal(errorReport(failure('No agent abcdef12', 'NOT_FOUND'), 'show', {}).code, 2);
    assert.deepEqual(errorReport(failure('The disk is full.'), 'start', {}), { text: 'paddock start: The disk is full.\n', code: 1 });
    const unexpected = errorReport(new Error('boom\n    at somewhere (file.js:1:1)'), 'list', {});
    assert.equal(unexpected.code, 1);
    assert.equal(unexpected.text, 'paddock list: boom at somewhere (file.js:1:1).\n');
    // Text from outside is shown, never obeyed.
    assert.equal(errorReport(failure('bad \x1b]0;title\x07 thing'), undefined, {}).text, 'paddock: bad \\x1b]0;title\\x07 thing.\n');
  });

  // Bug 50: Node's errno text ("ENOTDIR: not a directory, open '/…'") reached the person as it was.
  it('says a file-system error in words: the agent and the damaged part of the store, or the path; never the errno text', () => {
    const env = { PADDOCK_HOME: '/store' };
    const enotdir = Object.assign(new Error("ENOTDIR: not a directory, scandir '/store/jobs/ab12cd34/output'"), { code: 'ENOTDIR', errno: -20, syscall: 'scandir', path: '/store/jobs/ab12cd34/output' });
    assert.deepEqual(errorReport(enotdir, 'logs', env), {
      text: "paddock logs: Agent ab12cd34's output folder could not be listed: it is a file, not a folder (/store/jobs/ab12cd34/output).\n",
      code: 1,
    });
    const renamed = Object.assign(new Error("EISDIR: illegal operation on a directory, rename '/store/jobs/ab12cd34/.tmp-env.sealed.12.0a1b' -> '/store/jobs/ab12cd34/env.sealed'"), {
      code: 'EISDIR',
      syscall: 'rename',
      path: '/store/jobs/ab12cd34/.tmp-env.sealed.12.0a1b',
      dest: '/store/jobs/ab12cd34/env.sealed',
    });
    assert.match(errorReport(renamed, 'retry', env).text, /^paddock retry: Agent ab12cd34's sealed environment could not be put in place: it is a folder, not a file \(\/store\/jobs\/ab12cd34\/env\.sealed\)\.\n$/);
    const outside = Object.assign(new Error("EACCES: permission denied, open '/etc/x'"), { code: 'EACCES', syscall: 'open', path: '/etc/x' });
    assert.equal(errorReport(outside, 'start', env).text, 'paddock start: /etc/x could not be opened: permission is denied.\n');
    // Copied into an operation's sentence (describeError): said in words all the same.
    const wrapped = failure("Could not forget agent ab12cd34: ENOTDIR: not a directory, scandir '/store/jobs/ab12cd34'");
    assert.deepEqual(errorReport(wrapped, 'forget', env), { text: "paddock forget: Could not forget agent ab12cd34: Agent ab12cd34's folder could not be listed: it is a file, not a folder (/store/jobs/ab12cd34).\n", code: 1 });
    for (const err of [enotdir, renamed, outside, wrapped]) assert.doesNotMatch(errorReport(err, 'x', env).text, /\bE[A-Z]{3,}\b|scandir|illegal operation/);
  });

  it('an unknown verb goes through the same formatter', async () => {
    const r = await run(['frobnicate\x1b[2J'], env);
    assert.equal(r.code, 2);
    assert.equal(r.stderr, "paddock: unknown command 'frobnicate\\x1b[2J'; run paddock --help for the commands.\n");
  });
});
