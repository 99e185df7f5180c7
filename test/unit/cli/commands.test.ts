/**
 * The worker-facing CLI commands, run in-process (send, screen, logs, stop,
 * signal) or in a real PTY (attach: raw mode, Ctrl-\ detach, mode reset).
 */
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import * as pty from 'node-pty';
import { logsCommand } from '../../../src/cli/commands/logs';
import { screenCommand } from '../../../src/cli/commands/screen';
import { sendCommand } from '../../../src/cli/commands/send';
import { signalCommand } from '../../../src/cli/commands/signal';
import { stopCommand } from '../../../src/cli/commands/stop';
import { RESET_TERMINAL_MODES } from '../../../src/core/protocol/terminalModes';
import { OwnedLock } from '../../../src/core/coordinator/ownedLock';
import { Sandbox, runCli, sleep, waitUntil } from '../core/worker/fixtures';

describe('worker CLI commands', function () {
  this.timeout(60_000);
  let sb: Sandbox;
  const ptys: pty.IPty[] = [];
  beforeEach(() => (sb = new Sandbox({ NODE_PATH: join(process.cwd(), 'node_modules') })));
  afterEach(() => {
    for (const p of ptys.splice(0)) p.kill('SIGKILL');
    sb.dispose();
  });

  /** Runs `paddock attach` (src/cli/commands/attach.ts, compiled) in a real terminal through a tiny node entry. */
  function attachInPty(args: string[]): { term: pty.IPty; output: () => string; exited: Promise<number> } {
    const module = join(__dirname, '../../../src/cli/commands/attach.js');
    const entry = `require(${JSON.stringify(module)}).attachCommand.run(${JSON.stringify(args)}, { io: process, env: process.env, cwd: process.cwd() }).then((c) => process.exit(c), (e) => { process.stderr.write(e.message + '\\n'); process.exit(e.kind === 'usage' ? 2 : 1); })`;
    const term = pty.spawn(process.execPath, ['-e', entry], { cols: 80, rows: 24, env: sb.env as Record<string, string>, cwd: sb.cwd });
    ptys.push(term);
    let out = '';
    term.onData((d) => (out += d));
    const exited = new Promise<number>((r) => term.onExit((e) => r(e.exitCode)));
    return { term, output: () => out, exited };
  }

  it('attach shows the screen, types into the agent, and Ctrl-\\ detaches leaving it running', async () => {
    const job = await sb.start(['env', 'PS1=$ ', 'bash', '--norc', '--noprofile', '-i']);
    await runCli(sendCommand, [job.id, 'echo before-attach'], sb.env);
    const a = attachInPty([job.id]);
    await waitUntil('the replayed screen', () => a.output().includes('before-attach'));
    a.term.write('echo typed-$((2+3))\r');
    await waitUntil('the echo', () => a.output().includes('typed-5'));
    // A window resize reaches the agent (SIGWINCH → resize frame).
    a.term.resize(100, 30);
    await new Promise((r) => setTimeout(r, 200));
    a.term.write('stty size\r');
    await waitUntil('the new size', () => a.output().includes('30 100'));
    a.term.write('\x1c');
    assert.equal(await a.exited, 0);
    assert.ok(a.output().includes(RESET_TERMINAL_MODES), 'terminal modes are reset');
    assert.match(a.output(), new RegExp(`Re-attach with: paddock attach ${job.id}`));
    assert.equal((await sb.store.read(job.id)).lifecycle.state, 'running');
    const screen = await runCli(screenCommand, [job.id], sb.env);
    assert.match(screen.stdout, /typed-5/);
  });

  it('attach --read-only cannot type', async () => {
    const job = await sb.start(['env', 'PS1=$ ', 'bash', '--norc', '--noprofile', '-i']);
    const a = attachInPty([job.id, '--read-only']);
    await waitUntil('attached', () => a.output().includes('$'));
    a.term.write('echo sneaky-$((1+1))\r');
    await runCli(sendCommand, [job.id, 'echo legit-$((3+4))'], sb.env);
    await waitUntil('legit output', () => a.output().includes('legit-7'));
    a.term.write('\x1c');
    await a.exited;
    assert.ok(!(await sb.store.readOutput(job.id)).toString().includes('sneaky-2'));
  });

  it('attach reports the agent ending and resets the terminal', async () => {
    const job = await sb.start(['sh', '-c', 'read x; printf "\\033[?1049h\\033[?1000h\\033[?2004hbye"; exit 4']);
    const a = attachInPty([job.id]);
    await waitUntil('attached', () => a.output().length > 0);
    a.term.write('go\r');
    assert.equal(await a.exited, 0);
    assert.match(a.output(), /exited with code 4 \(failed\)/);
    const tail = a.output().slice(a.output().lastIndexOf('bye'));
    assert.ok(tail.includes(RESET_TERMINAL_MODES));
  });

  it('logs prints the recorded output and --follow streams until the end', async () => {
    const job = await sb.start(['sh', '-c', 'echo first; read x; echo second; sleep 0.5; echo third']);
    await waitUntil('first', async () => (await sb.store.readOutput(job.id)).toString().includes('first'));
    const now = await runCli(logsCommand, [job.id], sb.env);
    assert.match(now.stdout, /first/);
    const follow = runCli(logsCommand, [job.id, '--follow'], sb.env);
    await runCli(sendCommand, [job.id, 'go'], sb.env);
    const r = await follow;
    assert.equal(r.code, 0);
    assert.match(r.stdout, /first[\s\S]*second[\s\S]*third/);
    assert.equal(r.stdout.split('first').length, 2, 'nothing printed twice');
  });

  it('stop reports the outcome; stopping an ended agent says so', async () => {
    const job = await sb.start(['sleep', '600']);
    const r = await runCli(stopCommand, [job.id], sb.env);
    assert.equal(r.code, 0);
    assert.equal(r.stdout, `Agent ${job.id} is cancelled.\n`);
    const again = await runCli(stopCommand, [job.id], sb.env);
    assert.equal(again.stdout, `Agent ${job.id} is already cancelled.\n`);
  });

  it('stop reports the generation it acted on, not the state a concurrent retry left', async () => {
    const job = await sb.start(['true']);
    await sb.waitForState(job.id, ['completed']);
    // A retry holds the job's operation lock while the stop reads the agent and waits for it.
    const held = await new OwnedLock(join(sb.home, 'coordinator', 'ops', `${job.id}.lock`), 'a retry').acquire(5000);
    const stopping = runCli(stopCommand, [job.id], sb.env);
    await sleep(500);
    await sb.store.beginGeneration(job.id); // the retry's generation 2, queued
    await held.release();
    const r = await stopping;
    assert.equal(r.code, 0);
    assert.equal(r.stdout, `Agent ${job.id} is cancelled: generation 2 had not started yet.\n`);
    const again = await runCli(stopCommand, [job.id], sb.env);
    assert.equal(again.stdout, `Agent ${job.id} is already cancelled (generation 2).\n`);
  });

  it('screen prints the final screen of an ended agent', async () => {
    const job = await sb.start(['sh', '-c', 'echo done-here']);
    await sb.waitForState(job.id, ['completed']);
    const r = await runCli(screenCommand, [job.id], sb.env);
    assert.equal(r.stdout, 'done-here\n');
  });

  it('signal outside an agent and bad arguments are usage errors', async () => {
    await assert.rejects(runCli(signalCommand, ['waiting'], {}), (e: { kind?: string; message: string }) => e.kind === 'usage' && /inside a Paddock agent/.test(e.message));
    await assert.rejects(runCli(signalCommand, ['sleeping'], {}), (e: { kind?: string }) => e.kind === 'usage');
    await assert.rejects(runCli(sendCommand, ['onlyid'], sb.env), (e: { kind?: string }) => e.kind === 'usage');
    await assert.rejects(runCli(screenCommand, ['Not-An-Id'], sb.env), (e: { kind?: string }) => e.kind === 'usage');
  });

  it('send to an ended agent is refused by the send rule, as bad input', async () => {
    const job = await sb.start(['true']);
    await sb.waitForState(job.id, ['completed']);
    await assert.rejects(
      runCli(sendCommand, [job.id, 'hi'], sb.env),
      (e: { kind?: string; message: string }) => e.kind === 'usage' && e.message === `Agent ${job.id} is completed; text can be sent only to a running or waiting agent.`,
    );
  });
});
