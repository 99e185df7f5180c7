/**
 * `paddock attach` in real terminals: a tmux pane running a shell (what the
 * person sees before and after), and a node-pty terminal (the exact bytes).
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as pty from 'node-pty';
import { attachCommand } from '../../../../src/cli/commands/attach';
import { screenCommand } from '../../../../src/cli/commands/screen';
import { stopCommand } from '../../../../src/cli/commands/stop';
import { canAttach } from '../../../../src/core/operations/rules';
import { RESET_TERMINAL_MODES } from '../../../../src/core/protocol/terminalModes';
import { AGENT_MODES_ON, outerTerminalState } from '../../core/protocol/outerTerminalState';
import { ATTACH_MODULE, writeAttachEntry } from './attachEntry';
import { Sandbox, TmuxPane, runCli, sleep, stable, waitUntil } from '../../core/worker/fixtures';


describe('paddock attach', function () {
  this.timeout(60_000);
  let sb: Sandbox;
  let tmux: TmuxPane | undefined;
  const ptys: pty.IPty[] = [];
  let entry: string;
  beforeEach(() => {
    sb = new Sandbox({ PS1: '$ ', INPUTRC: '/dev/null' });
    entry = writeAttachEntry();
  });
  afterEach(() => {
    tmux?.dispose();
    tmux = undefined;
    for (const p of ptys.splice(0)) p.kill('SIGKILL');
    sb.dispose();
  });

  function shellInTmux(): TmuxPane {
    tmux = new TmuxPane(['env', 'PS1=$ ', 'bash', '--norc', '--noprofile', '-i'], sb.env, sb.cwd);
    return tmux;
  }

  it('runs on the alternate screen: the shell screen is back after detaching with the kitty-protocol Ctrl-\\', async () => {
    const job = await sb.start([
      'sh',
      '-c',
      "printf 'agent-main\\n\\033[?1049h'; echo in-alt; read x; printf '\\033[?1049l'; echo main-again; read y",
    ]);
    const pane = shellInTmux();
    await waitUntil('the shell prompt', () => pane.capture().some((l) => l.startsWith('$')));
    pane.sendLine('echo shell-marker');
    await waitUntil('the marker', () => pane.capture().includes('shell-marker'));
    pane.sendLine(`node ${entry} ${job.id}`);
    await waitUntil('the agent on the alternate screen', () => pane.capture().includes('in-alt'));
    assert.ok(!pane.capture().includes('shell-marker'), 'the shell screen is hidden while attached');
    // The agent leaves its alternate screen: the viewer stays on the outer one and shows the agent's main screen.
    pane.sendLine('go');
    await waitUntil('the agent main screen', () => {
      const lines = pane.capture();
      return lines.includes('agent-main') && lines.includes('main-again');
    });
    assert.ok(!pane.capture().includes('shell-marker'), 'the agent leaving its alternate screen does not show the shell');
    pane.sendBytes('\x1b[92;5u');
    await waitUntil('the detach message', () => pane.capture().some((l) => l.startsWith(`Detached from agent ${job.id}`)));
    const after = pane.capture();
    assert.deepEqual(after.slice(0, 3), ['$ echo shell-marker', 'shell-marker', `$ node ${entry} ${job.id}`]);
    for (const agentText of ['agent-main', 'in-alt', 'main-again']) assert.ok(!after.includes(agentText), `${agentText} is not left on the shell screen`);
    assert.equal((await sb.store.read(job.id)).lifecycle.state, 'running');
  });

  it('replays the kitty keyboard flags and alternate scroll the agent set, and resets both on detach', async () => {
    const job = await sb.start(['sh', '-c', "printf '\\033[>7u\\033[?1007hready\\n'; exec sleep 600"]);
    await waitUntil('the agent output', async () => (await sb.store.readOutput(job.id)).toString().includes('ready'));
    const term = pty.spawn(process.execPath, [entry, job.id], { cols: 80, rows: 24, env: sb.env as Record<string, string>, cwd: sb.cwd });
    ptys.push(term);
    let out = '';
    term.onData((d) => (out += d));
    const exited = new Promise<number>((r) => term.onExit((e) => r(e.exitCode)));
    await waitUntil('the replayed screen', () => out.includes('ready'));
    assert.ok(out.includes('\x1b[>7u'), 'the pushed flags exactly');
    assert.ok(!out.includes('\x1b[>1u'));
    assert.ok(out.includes('\x1b[?1007h'));
    term.write('\x1b[92;5u');
    assert.equal(await exited, 0);
    const tail = out.slice(out.lastIndexOf('ready'));
    assert.ok(tail.includes(RESET_TERMINAL_MODES), 'terminal modes are reset');
    assert.ok(RESET_TERMINAL_MODES.includes('\x1b[?1007l') && RESET_TERMINAL_MODES.includes('\x1b[<99u'));
  });

  it("leaves the person's terminal in a fresh terminal's modes on detach, cursor shape and keypad included", async () => {
    const modes = AGENT_MODES_ON.replaceAll('\x1b', '\\033');
    const job = await sb.start(['sh', '-c', `read x; printf '${modes}moded\\n'; exec sleep 600`]);
    const term = pty.spawn(process.execPath, [entry, job.id], { cols: 80, rows: 24, env: sb.env as Record<string, string>, cwd: sb.cwd });
    ptys.push(term);
    let out = '';
    term.onData((d) => (out += d));
    const exited = new Promise<number>((r) => term.onExit((e) => r(e.exitCode)));
    await waitUntil('attached', () => out.includes('\x1b[?1049h'));
    term.write('go\r');
    await waitUntil('the agent modes', () => out.includes('moded'));
    const fresh = await outerTerminalState();
    assert.notDeepEqual(await outerTerminalState(out), fresh, 'the agent modes reached the outer terminal');
    term.write('\x1c');
    assert.equal(await exited, 0);
    assert.deepEqual(await outerTerminalState(out), fresh);
  });

  it('a viewer of another size gets a dim notice and no wrapping, and takes the size back by typing', async () => {
    const job = await sb.start(['env', 'PS1=$ ', 'bash', '--norc', '--noprofile', '-i']);
    const open = (cols: number, rows: number) => {
      const term = pty.spawn(process.execPath, [entry, job.id], { cols, rows, env: sb.env as Record<string, string>, cwd: sb.cwd });
      ptys.push(term);
      const view = { term, out: '' };
      term.onData((d) => (view.out += d));
      return view;
    };
    const small = open(80, 24);
    await waitUntil('the first viewer', () => small.out.includes('$'));
    const wide = open(120, 30);
    await waitUntil('the second viewer', () => wide.out.includes('$'));
    await waitUntil('the notice in the first viewer', () => small.out.includes('(sized for another viewer: 120×30; type here to size it for this one)'));
    assert.ok(small.out.includes('\x1b[?7l'), 'no wrapping while the agent is wider');
    assert.ok(!wide.out.includes('sized for another viewer'));
    small.term.write('stty size\r');
    await waitUntil('the size taken back', () => small.out.includes('24 80'));
    await waitUntil('the notice in the second viewer', () => wide.out.includes('(sized for another viewer: 80×24;'));
  });

  it("draws the size notice without the cursor the agent saved: the agent's ESC 8 still lands where it saved", async () => {
    const job = await sb.start(['sh', '-c', "printf 'top\\033[5;10Hsaved\\0337\\033[12;1Hbelow'; read x; printf '\\0338X'; exec sleep 600"]);
    await waitUntil('the agent output', async () => (await sb.store.readOutput(job.id)).toString().includes('below'));
    // The viewer watched: a real terminal, whose saved cursor the notice must leave to the agent.
    const pane = new TmuxPane([process.execPath, entry, job.id], sb.env, sb.cwd, 80, 24);
    tmux = pane;
    await waitUntil('attached', () => pane.capture().some((l) => l.startsWith('below')));
    const wide = pty.spawn(process.execPath, [entry, job.id], { cols: 100, rows: 30, env: sb.env as Record<string, string>, cwd: sb.cwd });
    ptys.push(wide);
    await waitUntil('the notice', () => pane.capture().some((l) => l.startsWith('(sized for another viewer: 100×30;')));
    wide.write('go\r');
    await waitUntil('the agent restored its cursor and wrote', () => pane.capture().some((l) => l.includes('X')));
    const lines = pane.capture();
    assert.equal(lines[4], '         savedX', lines.join('\n'));
    assert.ok(lines[11].startsWith('below'), lines.join('\n'));
  });

  it("a terminal shorter than the agent keeps its last row when the agent's hyperlink is kept for a line of its scrollback", async () => {
    // The agent opens a link, scrolls its row into the scrollback (ESC D on its last row), fills 24 rows, and leaves its
    // alternate screen (attach asks for the screen again). Row 24 is longer than the size notice drawn over it.
    const rows = Array.from({ length: 23 }, (_, i) => `line ${i + 1}\r\n`).join('') + 'z'.repeat(79);
    const bytes = `\x1b[H\x1b]8;;https://a.example/\x1b\\\x1b[30;1H\x1bD\x1b[1;1H${rows}\x1b[?1049h\x1b[?1049l`;
    const job = await sb.start([process.execPath, '-e', `process.stdin.once('data', () => process.stdout.write(${JSON.stringify(bytes)})); setInterval(() => {}, 1000);`]);
    const pane = new TmuxPane([process.execPath, entry, job.id], sb.env, sb.cwd, 80, 24);
    tmux = pane;
    await waitUntil('attached', () => pane.format('#{alternate_on}') === '1');
    const tall = pty.spawn(process.execPath, [entry, job.id], { cols: 80, rows: 30, env: sb.env as Record<string, string>, cwd: sb.cwd });
    ptys.push(tall);
    await waitUntil('the notice', () => pane.capture().some((l) => l.startsWith('(sized for another viewer: 80×30;')));
    tall.write('go\r');
    await waitUntil('the agent screen redrawn', () => pane.capture()[0] === 'line 1' && pane.capture().some((l) => l.startsWith('(sized for another viewer'))).catch(() => assert.fail(pane.capture().join('\n')));
    const lines = await stable(() => pane.capture());
    // The replay's margins (1;30) were clamped to the pane's 24 rows: IL and LF scrolled its last row away.
    assert.equal(lines[22], 'line 23', lines.join('\n'));
    assert.match(lines[23], /^\(sized for another viewer: 80×30;.*\)z+$/, lines.join('\n'));
  });

  it('gives the terminal back as the detach key does when attach itself gets SIGTERM, SIGHUP or SIGINT, also with the lock library loaded', async () => {
    // The agent leaves the alternate screen, mouse reporting, a hidden cursor, application keys and no wrapping on.
    const job = await sb.start(['sh', '-c', "printf '\\033[?1049h\\033[?1000h\\033[?1006h\\033[?25l\\033[?1h\\033[?7lin-agent\\n'; exec sleep 600"]);
    const modes = '#{alternate_on} #{mouse_any_flag} #{cursor_flag} #{keypad_cursor_flag} #{wrap_flag}';
    // proper-lockfile's exit hook re-raises a signal it finds no other listener for: loaded after the
    // process began listening (its first lock), it killed a process that took its own listener off as
    // it ran. Here it is loaded as soon as attach listens for SIGTERM.
    const lockLibrary = join(dirname(entry), 'lock-library.js');
    const lockModule = JSON.stringify(join(dirname(ATTACH_MODULE), '..', '..', 'core', 'store', 'lockfileModule'));
    writeFileSync(
      lockLibrary,
      `const on = process.on;\nprocess.on = function (event, ...rest) {\n  if (event === 'SIGTERM') { process.on = on; setImmediate(() => require(${lockModule}).lockfile()); }\n  return on.call(this, event, ...rest);\n};\n`,
    );
    const cases = [...(['SIGTERM', 'SIGHUP', 'SIGINT'] as const).map((signal) => ({ signal, preload: '' })), { signal: 'SIGTERM' as const, preload: `-r ${lockLibrary} ` }];
    for (const { signal, preload } of cases) {
      const pane = shellInTmux();
      await waitUntil('the shell prompt', () => pane.capture().some((l) => l.startsWith('$')));
      const before = pane.format(modes);
      pane.sendLine(`node ${preload}${entry} ${job.id}; echo "rc=$?"`);
      await waitUntil('the agent screen', () => pane.capture().includes('in-agent'));
      assert.equal(pane.format(modes), '1 1 0 1 0', 'the agent modes reached the outer terminal');
      const pid = execFileSync('pgrep', ['-f', `${entry} ${job.id}`]).toString().trim();
      process.kill(Number(pid), signal);
      await waitUntil(`the shell back after ${signal}`, () => pane.capture().some((l) => l.startsWith('rc=')));
      const after = pane.capture();
      // (joined: the sentence wraps at the pane's 80 columns)
      assert.ok(after.join('').includes(`Detached from agent ${job.id} on ${signal}; it keeps running. Re-attach with: paddock attach ${job.id}`), after.join('\n'));
      assert.ok(after.includes('rc=1'));
      assert.ok(!after.includes('in-agent'), 'the shell screen is back');
      assert.equal(pane.format(modes), before, `modes after ${signal}`);
      tmux?.dispose();
      tmux = undefined;
    }
    assert.equal((await sb.store.read(job.id)).lifecycle.state, 'running');
  });

  const titleCases = [
    { when: 'after the agent set one', agent: "read x; printf '\\033]0;AGENT-TITLE\\007titled\\n'; exec sleep 600", shown: 'titled', title: 'AGENT-TITLE' },
    {
      when: 'after the agent popped the title stack (vim leaving, pushed before the attach)',
      agent: "read x; printf '\\033[23;0t\\033]2;AGENT-TITLE\\007\\033[22;0t\\033]2;AGENT-TWO\\007popped\\n'; exec sleep 600",
      shown: 'popped',
      title: 'AGENT-TWO',
    },
  ];
  for (const { when, agent, shown, title } of titleCases) {
    it(`gives the person's terminal its own title back on detach ${when}`, async () => {
      const job = await sb.start(['sh', '-c', agent]);
      const pane = shellInTmux();
      await waitUntil('the shell prompt', () => pane.capture().some((l) => l.startsWith('$')));
      pane.sendLine("printf '\\033]2;MY-SHELL\\007'");
      await waitUntil('the shell title', () => pane.format('#{pane_title}') === 'MY-SHELL');
      pane.sendLine(`node ${entry} ${job.id}`);
      await waitUntil('attached', () => pane.format('#{alternate_on}') === '1');
      pane.sendKeys('Enter');
      await waitUntil('the agent title', () => pane.capture().includes(shown) && pane.format('#{pane_title}') === title);
      pane.sendBytes('\x1c');
      await waitUntil('detached', () => pane.capture().some((l) => l.startsWith(`Detached from agent ${job.id}`)));
      assert.equal(pane.format('#{pane_title}'), 'MY-SHELL');
    });
  }

  it('redraws the agent\'s screen from a fresh terminal\'s modes: the pen, margins and line drawing its output left do not garble it', async () => {
    // Leaving its alternate screen makes attach ask for the main screen again, drawn over what the output left on.
    const job = await sb.start(['sh', '-c', "printf 'row1\\nrow2\\nrow3\\n\\033[3;5r\\033[?6h\\033[44m\\033(0\\033[?1049hIN-ALT'; read x; printf '\\033[?1049l'; exec sleep 600"]);
    const pane = shellInTmux();
    await waitUntil('the shell prompt', () => pane.capture().some((l) => l.startsWith('$')));
    pane.sendLine(`node ${entry} ${job.id}`);
    await waitUntil('the agent on the alternate screen', () => pane.capture().some((l) => l.includes('IN-ALT')));
    pane.sendKeys('Enter');
    await waitUntil('the agent main screen', () => !pane.capture().some((l) => l.includes('IN-ALT')) && pane.capture().length >= 3);
    const screen = await stable(() => pane.capture());
    assert.deepEqual(screen.slice(0, 3), ['row1', 'row2', 'row3'], screen.join('\n'));
    assert.ok(!pane.captureStyled().split('\n').slice(0, 3).join('').includes('\x1b['), `no colour on the agent's plain rows: ${JSON.stringify(pane.captureStyled())}`);
  });

  it("keeps the session's screen through the agent's RIS and DECSTR, drawing what the agent's terminal shows, and gives the shell screen back", async () => {
    // tmux ignores DECSTR: the margins, origin mode and pen stayed the agent's old ones (X landed on row 4, red).
    const job = await sb.start(['sh', '-c', "printf 'agent\\033[?1000h\\033[2;4r\\033[?6h\\033[31m'; read x; printf '\\033[!p\\033[5;1HX'; read y; printf '\\033cAFTER'; exec sleep 600"]);
    const pane = shellInTmux();
    await waitUntil('the shell prompt', () => pane.capture().some((l) => l.startsWith('$')));
    pane.sendLine('echo shell-marker');
    await waitUntil('the marker', () => pane.capture().includes('shell-marker'));
    const modes = '#{alternate_on} #{origin_flag} #{mouse_any_flag}';
    pane.sendLine(`node ${entry} ${job.id}`);
    await waitUntil('attached', () => pane.capture().includes('agent') && pane.format('#{alternate_on}') === '1');
    pane.sendKeys('Enter');
    await waitUntil('X drawn', () => pane.capture().some((l) => l.includes('X')));
    const soft = await stable(() => pane.captureStyled());
    assert.equal(soft.split('\n')[4], 'X', soft);
    assert.equal(pane.format(modes), '1 0 1');
    pane.sendKeys('Enter');
    await waitUntil('after RIS', () => pane.capture()[0] === 'AFTER');
    assert.equal(pane.format(modes), '1 0 0', 'on the session\'s screen, the agent\'s mouse reporting reset');
    pane.sendBytes('\x1c');
    await waitUntil('detached', () => pane.capture().some((l) => l.startsWith(`Detached from agent ${job.id}`)));
    assert.ok(pane.capture().includes('shell-marker') && !pane.capture().includes('AFTER'), pane.capture().join('\n'));
  });

  it('a terminal shrunk then grown shows the agent\'s earlier lines again, as tmux and a fresh attach do', async () => {
    const job = await sb.start(['sh', '-c', 'for i in $(seq 1 40); do echo "line $i"; done; exec sleep 600']);
    await waitUntil('the output', async () => (await sb.store.readOutput(job.id)).toString().includes('line 40'));
    const pane = shellInTmux();
    await waitUntil('the shell prompt', () => pane.capture().some((l) => l.startsWith('$')));
    pane.sendLine(`node ${entry} ${job.id}`);
    await waitUntil('attached', () => pane.capture().includes('line 40'));
    pane.resize(40, 10);
    await waitUntil('the small screen', () => pane.capture().length <= 10 && pane.capture().includes('line 40'));
    pane.resize(80, 24);
    // The mirror reflowed the agent's screen with its history: lines 18-40 are back, not 9 lines and blank rows.
    await waitUntil('the earlier lines back', () => pane.capture()[0] === 'line 18', 10_000).catch(() => assert.fail(pane.capture().join('\n')));
    assert.equal(pane.capture().at(-1), 'line 40');
  });

  it('says at once that a queued agent has no terminal or screen yet, not that its worker is unreachable', async () => {
    const job = await sb.createJob(['sh', '-c', 'echo never']);
    assert.equal(job.lifecycle.state, 'queued');
    const started = Date.now();
    await assert.rejects(runCli(attachCommand, [job.id], sb.env), (e: { kind?: string; message: string }) => {
      assert.equal(e.kind, 'failed');
      assert.equal(e.message, `Agent ${job.id} is queued; only a starting, running, waiting or stopping agent has a terminal to attach to.`);
      return true;
    });
    await assert.rejects(runCli(screenCommand, [job.id], sb.env), (e: { kind?: string; message: string }) => {
      assert.equal(e.kind, 'failed');
      assert.equal(e.message, `Agent ${job.id} is queued (waiting for a free agent slot) and has no screen yet.`);
      return true;
    });
    assert.ok(Date.now() - started < 2000, 'no connect timeout');
  });

  it('attaches to a stopping agent to watch it shut down, until it ends (the window offers the same)', async () => {
    // An agent that takes a few seconds to shut down once asked to stop.
    const slowExit = "process.on('SIGHUP', () => {}); process.on('SIGTERM', () => { console.log('shutting-down'); setTimeout(() => process.exit(0), 3000); }); setInterval(() => {}, 1000); console.log('up');";
    const job = await sb.start([process.execPath, '-e', slowExit], { settings: { stopGraceMs: 20_000 } });
    await waitUntil('the agent ready to be stopped', async () => (await sb.store.readOutput(job.id)).includes('up'));
    const stopping = runCli(stopCommand, [job.id], sb.env);
    const record = await sb.waitForState(job.id, ['cancelling']);
    assert.equal(canAttach(record), true, 'the rule the window uses offers Attach on a stopping agent');
    const term = pty.spawn(process.execPath, [entry, '--read-only', job.id], { cols: 80, rows: 24, env: sb.env, cwd: sb.cwd });
    ptys.push(term);
    let output = '';
    term.onData((d) => (output += d));
    const exited = new Promise<number>((r) => term.onExit((e) => r(e.exitCode)));
    await waitUntil('the agent shutting down on the attached screen', () => output.includes('shutting-down')).catch(async (e) => { throw new Error(`${e.message}: ${JSON.stringify(output)} ${JSON.stringify(await sb.store.readTimeline(job.id))}`); });
    assert.equal(await exited, 0, output);
    assert.match(output, new RegExp(`Agent ${job.id} (exited|was killed)[^\\n]*\\(cancelled\\)`), "attach ends when the agent does, as a tmux pane closes");
    await stopping;
  });

  it('refuses to type into and size the agent from output that is not a terminal: the real viewer keeps its size', async () => {
    const job = await sb.start(['env', 'PS1=$ ', 'bash', '--norc', '--noprofile', '-i']);
    const term = pty.spawn(process.execPath, [entry, job.id], { cols: 120, rows: 40, env: sb.env as Record<string, string>, cwd: sb.cwd });
    ptys.push(term);
    let out = '';
    term.onData((d) => (out += d));
    await waitUntil('the real viewer attached', () => out.includes('$'));
    // A script capturing attach's output: stdout is a pipe, which has no size (80×24 would be claimed).
    const piped = runCli(attachCommand, [job.id], sb.env).then(
      () => 'returned',
      (e: { kind?: string; message: string }) => e,
    );
    const outcome = await Promise.race([piped, sleep(5000).then(() => 'still attached')]);
    assert.equal(typeof outcome, 'object', `attach without a terminal: ${String(outcome)}`);
    const refusal = outcome as { kind?: string; message: string };
    assert.equal(refusal.kind, 'usage');
    assert.match(refusal.message, /its output here is not a terminal; watch with: paddock attach \S+ --read-only/);
    term.write('stty size\r');
    await waitUntil('the size', () => out.includes('40 120')).catch(() => assert.fail(out.slice(-300)));
    assert.ok(!out.includes('sized for another viewer'));
    // Watching does not size the agent: allowed.
    const watching = runCli(attachCommand, [job.id, '--read-only'], sb.env);
    await sleep(500);
    term.write('\x1c');
    await runCli(stopCommand, [job.id, '--force'], sb.env);
    assert.equal((await watching).code, 0);
  });

  it('says an ended agent has ended and points to screen and logs', async () => {
    const job = await sb.start(['sh', '-c', 'echo done']);
    await sb.waitForState(job.id, ['completed']);
    await assert.rejects(runCli(attachCommand, [job.id], sb.env), (e: { kind?: string; message: string }) => {
      assert.equal(e.kind, 'failed');
      assert.equal(
        e.message,
        `Agent ${job.id} has ended (completed), so there is nothing to attach to; see its last screen with: paddock screen ${job.id}, and its output with: paddock logs ${job.id}.`,
      );
      return true;
    });
  });
});
