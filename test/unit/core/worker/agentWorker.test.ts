import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { existsSync, lstatSync, readFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { createConnection, Socket } from 'node:net';
import { ensureRuntimeDir, runtimeDirFor, socketFileName } from '../../../../src/core/protocol/runtimeDir';
import { WorkerClient } from '../../../../src/core/protocol/client';
import { decodeFrame, LineDecoder } from '../../../../src/core/protocol/framing';
import { ServerMessageSchema } from '../../../../src/core/protocol/messages';
import { screenLines } from '../../../../src/core/protocol/screenText';
import { trimScreen } from '../../../../src/core/protocol/trimScreen';
import { Sandbox, TmuxPane, sleep, stable, waitUntil } from './fixtures';
import { ForeignSocket, foreignSocket } from './foreignSocket';

describe('AgentWorker', function () {
  this.timeout(120_000);
  let sb: Sandbox;
  const clients: WorkerClient[] = [];
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => {
    for (const c of clients.splice(0)) c.dispose();
    sb.dispose();
  });

  async function connect(id: string): Promise<WorkerClient> {
    const c = await WorkerClient.connect(sb.store, id);
    clients.push(c);
    return c;
  }

  it('fails the agent with one sentence when no node-pty loads for this runtime', async () => {
    const job = await sb.start(['true'], { nodePtyPath: join(sb.home, 'no-such-app', 'node_modules', 'node-pty'), waitFor: ['failed', 'completed', 'orphaned'] });
    assert.equal(job.lifecycle.state, 'failed');
    const detail = job.lifecycle.detail ?? '';
    assert.match(detail, /^No node-pty loads for this runtime, Node \d+\.\d+\.\d+, so the agent cannot get a terminal \(.*no-such-app.*\)\.$/);
    assert.doesNotMatch(detail, /\n|Require stack|at /);
  });

  it('records completed for exit 0 and failed with the code otherwise', async () => {
    const ok = await sb.start(['true']);
    const bad = await sb.start(['sh', '-c', 'exit 7']);
    const killed = await sb.start(['sh', '-c', 'kill -9 $$']);
    assert.equal((await sb.waitForState(ok.id, ['completed', 'failed'])).lifecycle.state, 'completed');
    const b = await sb.waitForState(bad.id, ['completed', 'failed']);
    assert.equal(b.lifecycle.state, 'failed');
    assert.equal(b.lifecycle.exitCode, 7);
    const k = await sb.waitForState(killed.id, ['completed', 'failed']);
    assert.equal(k.lifecycle.state, 'failed');
    assert.equal(k.lifecycle.signal, 'SIGKILL');
    assert.equal(k.execution, null, 'a terminal state releases the execution');
  });

  it('loses no output at exit: 20 KB printed then exit, 50 runs of 50', async () => {
    // 20 KB in 250 lines of 80 bytes, each numbered, then exit at once.
    const script = 'i=0; while [ $i -lt 250 ]; do printf "%03d%077d\\n" $i 0; i=$((i+1)); done';
    const ids: string[] = [];
    for (let batch = 0; batch < 5; batch++) {
      const jobs = await Promise.all(Array.from({ length: 10 }, () => sb.start(['sh', '-c', script])));
      for (const j of jobs) ids.push(j.id);
      await Promise.all(jobs.map((j) => sb.waitForState(j.id, ['completed', 'failed'])));
    }
    let complete = 0;
    for (const id of ids) {
      const out = (await sb.store.readOutput(id)).toString();
      const lines = out.split(/\r?\n/).filter((l) => /^\d{3}0{77}$/.test(l));
      if (lines.length === 250 && lines[249].startsWith('249')) complete++;
    }
    assert.equal(complete, 50);
  });

  it('re-attach while vim is in the alternate screen gives the identical screen (and matches tmux)', async () => {
    const lines = Array.from({ length: 40 }, (_, i) => `row ${i} ${'abc '.repeat(i % 9)}`);
    writeFileSync(join(sb.cwd, 'f.txt'), lines.join('\n'));
    const command = ['vim', '--clean', '-n', 'f.txt'];
    const job = await sb.start(command);
    const tmux = new TmuxPane(command, sb.env, sb.cwd);
    try {
      const attachOnce = async (readOnly: boolean) => {
        const c = await connect(job.id);
        const ready = await c.attach({ cols: 80, rows: 24, readOnly });
        c.detach();
        return { screen: ready.screen, lines: trimScreen(await screenLines(ready.screen, ready.cols, ready.rows)) };
      };
      const first = await stable(() => attachOnce(true));
      assert.ok(first.screen.includes('\x1b[?1049h'), 'the snapshot enters the alternate screen');
      assert.deepEqual(first.lines, await stable(() => tmux.capture()));
      // A writable viewer attaches, detaches, and attaches again: the same screen each time.
      const writable = await attachOnce(false);
      await sleep(300);
      const again = await attachOnce(false);
      assert.deepEqual(writable.lines, first.lines);
      assert.deepEqual(again.lines, first.lines);
      assert.equal(again.screen, first.screen);
    } finally {
      tmux.dispose();
    }
  });

  it('serves two writable viewers and one read-only viewer; only writable ones type and size', async () => {
    const job = await sb.start(['env', 'PS1=$ ', 'bash', '--norc', '--noprofile', '-i']);
    const a = await connect(job.id);
    const b = await connect(job.id);
    const ro = await connect(job.id);
    const seen = { a: '', b: '', ro: '' };
    a.onDidOutput((d) => (seen.a += d));
    b.onDidOutput((d) => (seen.b += d));
    ro.onDidOutput((d) => (seen.ro += d));
    const roErrors: string[] = [];
    ro.onDidError((e) => roErrors.push(e));
    await a.attach({ cols: 80, rows: 24, readOnly: false });
    await b.attach({ cols: 80, rows: 24, readOnly: false });
    const roReady = await ro.attach({ cols: 80, rows: 24, readOnly: true });
    assert.equal(roReady.readOnly, true);

    a.input('echo from-$((40+1))\r');
    await waitUntil('a output everywhere', () => [seen.a, seen.b, seen.ro].every((s) => s.includes('from-41')));
    b.input('echo from-$((50+2))\r');
    await waitUntil('b output everywhere', () => [seen.a, seen.b, seen.ro].every((s) => s.includes('from-52')));
    ro.input('echo from-$((60+3))\r');
    ro.resize(40, 10);
    await waitUntil('two refusals', () => roErrors.length >= 2);
    await sleep(200);
    assert.ok(!seen.a.includes('from-63'), 'the read-only viewer could not type');
    assert.match(roErrors[0], /read-only/);

    // Size policy: the writable viewer that resized last decides.
    a.resize(100, 30);
    a.input('stty size\r');
    await waitUntil('100 cols', () => seen.b.includes('30 100'));
    b.resize(90, 20);
    b.input('stty size\r');
    await waitUntil('90 cols', () => seen.a.includes('20 90'));
  });

  it('gives the size back to the viewer active before the one that left, and to none once only read-only ones are left', async () => {
    // Bug 80: the agent stayed sized for a viewer that had detached, cut in the one still attached.
    const job = await sb.start(['env', 'PS1=$ ', 'bash', '--norc', '--noprofile', '-i']);
    const wide = await connect(job.id);
    const sizes: string[] = [];
    wide.onDidResize((s) => sizes.push(`${s.cols}x${s.rows}`));
    let seen = '';
    wide.onDidOutput((d) => (seen += d));
    await wide.attach({ cols: 100, rows: 30, readOnly: false });
    const small = await connect(job.id);
    await small.attach({ cols: 60, rows: 20, readOnly: false });
    const ro = await connect(job.id);
    await ro.attach({ cols: 40, rows: 10, readOnly: true });
    await waitUntil('sized for the small viewer', () => sizes.at(-1) === '60x20');
    small.detach();
    await waitUntil('sized for the wide viewer again', () => sizes.at(-1) === '100x30');
    wide.input('stty size\r');
    await waitUntil('the agent sees it', () => seen.includes('30 100'));
    wide.detach();
    await sleep(300);
    const look = await connect(job.id);
    const ready = await look.attach({ cols: 20, rows: 5, readOnly: true });
    // A guard (it passes before the fix too): the last writable viewer gone, the size stays.
    assert.deepEqual([ready.cols, ready.rows], [100, 30], 'read-only viewers never size it');
  });

  it('streams every byte to binary and JSON viewers alike, characters cut between PTY reads included', async () => {
    const line = 'ünï✓😀 output line\n';
    const job = await sb.start(['sh', '-c', `read go; yes '${line.trimEnd()}' | head -n 20000; echo FLOOD-DONE; sleep 600`]);
    const binary = await connect(job.id);
    let viaBinary = '';
    binary.onDidOutput((d) => (viaBinary += d));
    await binary.attach({ cols: 80, rows: 24, readOnly: false });
    // A viewer that never asked for binary frames gets `output` lines.
    const exec = (await sb.store.read(job.id)).execution!;
    const json = createConnection(exec.socketPath);
    let viaJson = '';
    const decoder = new LineDecoder(
      (l) => {
        const m = decodeFrame(l, ServerMessageSchema);
        if (m.ok && m.message.type === 'output') viaJson += m.message.data;
      },
      () => assert.fail('oversized frame'),
    );
    json.on('data', (d) => decoder.push(d));
    json.write(`${JSON.stringify({ type: 'attach', token: exec.socketToken, cols: 80, rows: 24, readOnly: true })}\n`);
    await sleep(300);
    binary.input('go\r');
    const expected = `${line.replace('\n', '\r\n').repeat(20000)}FLOOD-DONE`;
    try {
      await waitUntil('both viewers saw the end', () => viaBinary.includes('FLOOD-DONE') && viaJson.includes('FLOOD-DONE'), 60_000);
      assert.ok(viaBinary.includes(expected), 'the binary viewer got every character');
      assert.ok(viaJson.includes(expected), 'the JSON viewer got every character');
      assert.ok(!viaBinary.includes('\ufffd'));
    } finally {
      json.destroy();
    }
  });

  it('answers terminal queries from the headless mirror when no viewer is attached', async () => {
    // Asks for the cursor position (DSR 6) in raw mode and prints the reply.
    const script = `stty raw -echo; printf 'abc\\033[6n'; reply=$(dd bs=1 count=6 2>/dev/null | od -c | head -1); stty sane; echo; echo "reply:$reply"; sleep 600`;
    const job = await sb.start(['sh', '-c', script]);
    await waitUntil('the reply', async () => (await sb.store.readOutput(job.id)).toString().includes('reply:'));
    const out = (await sb.store.readOutput(job.id)).toString();
    assert.match(out, /reply:0000000 033\s+\[\s+1\s+;\s+4\s+R/);
  });

  it('saves the final screen for `paddock screen` after the end', async () => {
    const job = await sb.start(['sh', '-c', 'printf "last words  \\n\\n"']);
    await sb.waitForState(job.id, ['completed']);
    const text = readFileSync(join(sb.store.jobDir(job.id), 'screen.txt'), 'utf8');
    assert.equal(text, 'last words\n');
  });

  it('marks a job waiting on a screen pattern and running again after input', async () => {
    const job = await sb.start(['sh', '-c', 'echo "Proceed? [y/n]"; read x; echo "got $x"; sleep 600'], {
      settings: { waitingPattern: 'Proceed\\? \\[y/n\\]' },
    });
    const waiting = await sb.waitForState(job.id, ['waiting']);
    assert.equal(waiting.lifecycle.waitingReason, 'pattern');
    const c = await connect(job.id);
    await c.hello();
    await c.send('y');
    const running = await sb.waitForState(job.id, ['running']);
    assert.equal(running.lifecycle.waitingReason, null);
  });

  it('a prompt asked again at the same spot is waiting again; the echo of the answer is not', async () => {
    // A TUI's question, redrawn in place once answered: the same text on the same row, the answer echoed after it.
    const ask = `printf '\\r\\033[KProceed? [y/n] '`;
    const job = await sb.start(['sh', '-c', `stty -icanon min 1; ${ask}; while :; do dd bs=1 count=1 >/dev/null 2>&1; echo answered >> answers; sleep 2.5; ${ask}; done`], {
      settings: { waitingPattern: 'Proceed\\? \\[y/n\\]' },
    });
    await sb.waitForState(job.id, ['waiting']);
    const answers = join(job.cwd, 'answers');
    const c = await connect(job.id);
    await c.attach({ cols: 80, rows: 24, readOnly: false });
    for (let answer = 1; answer <= 2; answer++) {
      c.input('y');
      await waitUntil('the answer read', () => existsSync(answers) && readFileSync(answers, 'utf8').split('\n').length > answer);
      await sleep(1_200); // (waiting writes are at most one a second) the agent works on the answer, its answered question still on screen
      const working = await sb.store.read(job.id);
      assert.deepEqual([working.lifecycle.state, working.lifecycle.waitingReason], ['running', null], 'the echoed answer leaves it running');
      const again = await sb.waitForState(job.id, ['waiting'], 5_000);
      assert.equal(again.lifecycle.waitingReason, 'pattern', `asked again after answer ${answer}`);
    }
  });

  it('marks a job waiting when idle and running again on output', async () => {
    const job = await sb.start(['sh', '-c', 'read x; echo "got $x"; sleep 600'], { settings: { idleSeconds: 2 } });
    const waiting = await sb.waitForState(job.id, ['waiting']);
    assert.equal(waiting.lifecycle.waitingReason, 'idle');
    const c = await connect(job.id);
    await c.hello();
    await c.send('go');
    await sb.waitForState(job.id, ['running']);
  });

  it('marks a job waiting on `paddock signal waiting` from inside the agent, running on `signal running`', async () => {
    const cli = join(__dirname, '../../../../src/cli/commands/signal.js');
    const signal = (state: string) =>
      `node -e "require('${cli}').signalCommand.run(['${state}'], {io: process, env: process.env, cwd: '.'}).then(c => process.exit(c), e => { console.error(e.message); process.exit(1) })"`;
    // The compiled command needs the project's node_modules.
    sb.dispose();
    sb = new Sandbox({ NODE_PATH: join(process.cwd(), 'node_modules') });
    const job = await sb.start(['sh', '-c', `${signal('waiting')} && echo signalled; read x; ${signal('running')}; echo resumed; sleep 600`]);
    const waiting = await sb.waitForState(job.id, ['waiting']);
    assert.equal(waiting.lifecycle.waitingReason, 'signal');
    const c = await connect(job.id);
    await c.hello();
    c.input('x\r'); // input ends a signalled wait too; the agent then signals running itself
    await sb.waitForState(job.id, ['running']);
    await waitUntil('resumed', async () => (await sb.store.readOutput(job.id)).toString().includes('resumed'));
    assert.equal((await sb.store.read(job.id)).lifecycle.state, 'running');
  });

  it('gives the agent a clean environment with the job marker, and redacts secret values from the log', async () => {
    sb.dispose();
    sb = new Sandbox({ NODE_OPTIONS: '--inspect=9', ELECTRON_RUN_AS_NODE: '1', MY_TOKEN: 'hunter2-very-secret-value' });
    const job = await sb.start(['sh', '-c', 'echo "opts=[$NODE_OPTIONS] electron=[$ELECTRON_RUN_AS_NODE] id=[$PADDOCK_JOB_ID] tok=[$MY_TOKEN]"'], {
      settings: { secretEnvNames: ['MY_TOKEN'] },
    });
    await sb.waitForState(job.id, ['completed']);
    const out = (await sb.store.readOutput(job.id)).toString();
    assert.match(out, new RegExp(`opts=\\[\\] electron=\\[\\] id=\\[${job.id}\\]`));
    assert.ok(!out.includes('hunter2-very-secret-value'), out);
    assert.match(out, /tok=\[\[REDACTED\]\]/);
  });

  it('ignores SIGHUP', async () => {
    const job = await sb.start(['sleep', '600']);
    const workerPid = (await sb.store.read(job.id)).execution!.pid;
    process.kill(workerPid, 'SIGHUP');
    await sleep(300);
    assert.equal((await sb.store.read(job.id)).lifecycle.state, 'running');
    const c = await connect(job.id);
    assert.equal((await c.attach({ cols: 80, rows: 24, readOnly: true })).type, 'ready', 'the worker still serves');
  });

  it('recovers a stale socket file left by a killed worker', async () => {
    const job = await sb.start(['sleep', '600'], {
      beforeSpawn: async (j) => {
        // A process that listens on the job's socket path and is SIGKILLed leaves the file behind.
        const dir = runtimeDirFor(sb.env);
        ensureRuntimeDir(dir);
        const path = join(dir, socketFileName(j.id, j.lifecycle.generation));
        const child = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(path)}, () => console.log('up'))`]);
        await new Promise((r) => child.stdout.once('data', r));
        child.kill('SIGKILL');
        await new Promise((r) => child.once('exit', r));
        assert.ok(lstatSync(path).isSocket(), 'the stale socket file is there');
      },
    });
    assert.equal(job.lifecycle.state, 'running', job.lifecycle.detail ?? '');
    const c = await connect(job.id);
    const ready = await c.attach({ cols: 80, rows: 24, readOnly: true });
    assert.equal(ready.type, 'ready', 'the worker serves on the recovered path');
  });

  it('leaves a socket whose process is slow to accept (its backlog full: EAGAIN) alone, and fails the job', async () => {
    // Found by review of bug 79: any failed connection counted as "nobody answers", EAGAIN too.
    let foreign: ForeignSocket | undefined;
    const held: Socket[] = [];
    try {
      const job = await sb.start(['sleep', '600'], {
        waitFor: ['running', 'failed'],
        beforeSpawn: async (j) => {
          const dir = ensureRuntimeDir(runtimeDirFor(sb.env));
          foreign = await foreignSocket(join(dir, socketFileName(j.id, j.lifecycle.generation)), 'never accepts', 0);
          // listen(0) holds one connection: the worker's is refused with EAGAIN.
          held.push(await new Promise<Socket>((resolve, reject) => {
            const s = createConnection(foreign!.path, () => resolve(s));
            s.once('error', reject);
          }));
        },
      });
      assert.equal(job.lifecycle.state, 'failed');
      assert.match(job.lifecycle.detail ?? '', /Another process is already serving the control socket/);
      assert.ok(foreign!.isThere(), 'the other process\'s socket is left in place');
    } finally {
      for (const s of held) s.destroy();
      foreign?.kill();
    }
  });

  it('fails the job with a clear reason when the socket path would be too long', async () => {
    const long = join(sb.runtimeDir, 'x'.repeat(120));
    const sb2 = new Sandbox({ PADDOCK_RUNTIME_DIR: long });
    try {
      const job = await sb2.start(['true']);
      const done = await sb2.waitForState(job.id, ['failed']);
      assert.match(done.lifecycle.detail ?? '', /is \d+ bytes, too long for a socket path in it \(at most 107 bytes\); set PADDOCK_RUNTIME_DIR to a directory of at most \d+ bytes/);
    } finally {
      sb2.dispose();
    }
  });
});
