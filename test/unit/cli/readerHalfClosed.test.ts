/**
 * A reader that half-closes its side of a socket still reads (review of bug 125): systemd's journal
 * stream is a socket whose logger shuts its sending side, as do `systemd-cat` and socat. An end of
 * file on the output was read as "reader gone": `paddock coordinate` under systemd stopped at once,
 * status 0, and `logs --follow` ended within 0.2 s. And the watch of a pipe called
 * `process.binding`, which under `--pending-deprecation` warned, and with `--throw-deprecation` ended
 * the CLI with a stack trace.
 */
import * as assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import * as net from 'node:net';
import { join } from 'node:path';
import { leaderLock } from '../../../src/core/scheduler/leadership';
import { CLI_SCRIPT, CoordinatorSandbox, runCli, sleep, useCoordinatorSandbox } from '../core/coordinator/coordinatorFixture';

/** Long next to the 0.2 s a half-closed reader lasted. */
const STILL_RUNNING_MS = 2_000;

/** A connected pair of Unix sockets: `reader` keeps reading after it shuts its sending side. */
async function socketPair(dir: string): Promise<{ reader: net.Socket; writer: net.Socket; read: () => string; close: () => void }> {
  const server = net.createServer({ allowHalfOpen: true });
  const file = join(dir, `pair-${process.hrtime.bigint()}.sock`);
  await new Promise<void>((resolve) => server.listen(file, resolve));
  const accepted = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
  const writer = net.connect(file);
  await new Promise<void>((resolve) => writer.once('connect', resolve));
  const reader = await accepted;
  server.close();
  let got = '';
  reader.on('data', (d: Buffer) => (got += d.toString()));
  reader.on('error', () => undefined);
  return { reader, writer, read: () => got, close: () => reader.destroy() };
}

/** Spawns the CLI with `out` (stdout or stderr) the socket's other end, then lets go of that end. */
function cliInto(sb: CoordinatorSandbox, args: string[], which: 'stdout' | 'stderr', writer: net.Socket): { child: ChildProcess; ended: Promise<number | null>; exited: () => boolean } {
  const stdio: ('ignore' | net.Socket)[] = ['ignore', 'ignore', 'ignore'];
  stdio[which === 'stdout' ? 1 : 2] = writer;
  const child = spawn(process.execPath, [CLI_SCRIPT, ...args], { cwd: sb.repo, env: sb.env, stdio });
  writer.destroy();
  let done = false;
  const ended = new Promise<number | null>((resolve) => child.on('exit', (code) => ((done = true), resolve(code))));
  return { child, ended, exited: () => done };
}

async function until(what: string, ok: () => boolean, ms = 20_000): Promise<void> {
  const by = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > by) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe('CLI: a reader that half-closes its socket still reads (review of bug 125)', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  it('coordinate logging into a half-closed socket (the journal) coordinates on', async () => {
    const pair = await socketPair(sb.home);
    const run = cliInto(sb, ['coordinate'], 'stderr', pair.writer);
    try {
      await until('the leading line', () => pair.read().includes('now leads'));
      pair.reader.end(); // shutdown(SHUT_WR): the reader reads on
      await sleep(STILL_RUNNING_MS);
      assert.equal(run.exited(), false, `it stopped: ${pair.read()}`);
      assert.notEqual(await leaderLock(sb.home).owner(), undefined, 'it still leads');
      pair.close();
      // The half-close was its end of file: the close is heard at its next line, or never; it is stopped
      // by a signal here, as the journal's service manager does.
      run.child.kill('SIGTERM');
      assert.equal(await run.ended, 0);
    } finally {
      run.child.kill('SIGKILL');
    }
  });

  it('coordinate whose log socket is closed by its reader stops at once, status 0, and gives up the lease', async () => {
    const pair = await socketPair(sb.home);
    const run = cliInto(sb, ['coordinate'], 'stderr', pair.writer);
    try {
      await until('the leading line', () => pair.read().includes('now leads'));
      pair.close();
      await until('the coordinator to stop', run.exited, 8_000);
      assert.equal(await run.ended, 0);
      assert.equal(await leaderLock(sb.home).owner(), undefined, 'no coordinator leads');
    } finally {
      run.child.kill('SIGKILL');
    }
  });

  it('coordinate whose half-closed reader then closes stops at its next line (EPIPE), status 0, lease given up', async () => {
    const leader = spawn(process.execPath, [CLI_SCRIPT, 'coordinate'], { cwd: sb.repo, env: sb.env, stdio: ['ignore', 'ignore', 'pipe'] });
    let led = '';
    leader.stderr!.on('data', (d: Buffer) => (led += d.toString()));
    const pair = await socketPair(sb.home);
    let run: ReturnType<typeof cliInto> | undefined;
    try {
      await until('the first to lead', () => led.includes('now leads'));
      run = cliInto(sb, ['coordinate'], 'stderr', pair.writer);
      await until('the second to start', () => pair.read().includes('coordinating'));
      pair.reader.end();
      await sleep(500);
      pair.close(); // after its end of file: only a write can tell now
      await sleep(500);
      assert.equal(run.exited(), false);
      leader.kill('SIGTERM'); // the second takes over, and says so into the closed socket
      await until('the second to stop', run.exited, 10_000);
      assert.equal(await run.ended, 0);
      await until('no coordinator to lead', () => leader.exitCode !== null);
      assert.equal(await leaderLock(sb.home).owner(), undefined, 'no coordinator leads');
    } finally {
      leader.kill('SIGKILL');
      run?.child.kill('SIGKILL');
    }
  });

  it('logs --follow into a half-closed socket goes on following the agent', async () => {
    const started = await runCli(['start', '--', 'sh', '-c', 'echo first-line; sleep 3; echo second-line; sleep 60'], { cwd: sb.repo, env: sb.env });
    assert.equal(started.code, 0, started.stderr);
    const id = started.stdout.trim();
    const pair = await socketPair(sb.home);
    const run = cliInto(sb, ['logs', id, '--follow'], 'stdout', pair.writer);
    try {
      await until('the first line', () => pair.read().includes('first-line'));
      pair.reader.end();
      await until('the second line, 3 s later', () => pair.read().includes('second-line') || run.exited());
      assert.equal(run.exited(), false, 'it ended at the half-close');
      assert.match(pair.read(), /second-line/);
    } finally {
      run.child.kill('SIGKILL');
      pair.close();
      await runCli(['stop', id], { cwd: sb.repo, env: sb.env });
    }
  });

  for (const [name, env] of [
    ['NODE_OPTIONS="--pending-deprecation --throw-deprecation"', { NODE_OPTIONS: '--pending-deprecation --throw-deprecation' }],
    ['NODE_PENDING_DEPRECATION=1', { NODE_PENDING_DEPRECATION: '1' }],
  ] as const) {
    it(`coordinate --until-idle logging into a pipe under ${name}: no deprecation warning, status 0`, async () => {
      const script = `"${process.execPath}" "${CLI_SCRIPT}" coordinate --until-idle 2>&1 | cat; exit \${PIPESTATUS[0]}`;
      const run = spawn('bash', ['-c', script], { cwd: sb.repo, env: { ...sb.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      run.stdout.on('data', (d: Buffer) => (out += d.toString()));
      run.stderr.on('data', (d: Buffer) => (out += d.toString()));
      const code = await new Promise<number | null>((resolve) => run.on('close', resolve));
      assert.doesNotMatch(out, /DEP0111|DeprecationWarning/);
      assert.match(out, /nothing is left to do: exiting/);
      assert.equal(code, 0, out);
    });
  }
});
