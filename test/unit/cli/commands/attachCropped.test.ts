/**
 * `paddock attach` in a terminal narrower than the agent (bug 131): every screen it draws, the
 * snapshot on attaching and each one asked for again, is cropped at the terminal's right margin as
 * tmux shows a window larger than its client; none wraps its long rows onto the rows below.
 */
import * as assert from 'node:assert/strict';
import * as pty from 'node-pty';
import { writeAttachEntry } from './attachEntry';
import { Sandbox, TmuxPane, stable, waitUntil } from '../../core/worker/fixtures';

const AGENT_COLS = 100;

/**
 * 23 rows longer than the pane, each its own letter up to column 95: with auto-wrap off a terminal
 * writes every character past its margin in its last column, which shows a row's last character
 * (left, bug 131's entry), here the same as the agent's at that column.
 */
const ROWS = Array.from({ length: 23 }, (_, i) => `row ${i + 1} `.padEnd(95, String.fromCharCode(97 + i)));

describe('paddock attach in a terminal narrower than the agent', function () {
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

  /** The pane shows the agent's 23 rows cut at `cols`, and the size notice on its last row. */
  async function assertCropped(pane: TmuxPane, cols: number): Promise<void> {
    const expected = ROWS.map((r) => r.slice(0, cols));
    await waitUntil('the cropped screen', () => pane.capture().slice(0, 23).join('\n') === expected.join('\n'), 5000).catch(() => undefined);
    const lines = await stable(() => pane.capture());
    assert.deepEqual(lines.slice(0, 23), expected, lines.join('\n'));
    assert.match(lines[23] ?? '', new RegExp(`^\\(sized for another viewer: ${AGENT_COLS}×24;`), lines.join('\n'));
    assert.equal(pane.format('#{wrap_flag}'), '0', 'auto-wrap off while cropped');
  }

  it('draws the snapshot, a screen asked for again and one after a resize cropped, and gives the terminal back on detach', async () => {
    // On `g` the agent fills 23 rows, on `!` it enters and leaves its alternate screen (attach asks for the screen again). No echo.
    const rows = JSON.stringify(ROWS.join('\r\n') + '\r\n');
    const agent = `process.stdin.setRawMode(true); process.stdin.on('data', (d) => { if (d.includes('g')) process.stdout.write(${rows}); if (d.includes('!')) process.stdout.write('\\x1b[?1049h\\x1b[?1049l'); }); setInterval(() => {}, 1000);`;
    const job = await sb.start([process.execPath, '-e', agent]);
    // A wider viewer sizes the agent's terminal (100×24) and has it draw its rows.
    const wide = pty.spawn(process.execPath, [entry, job.id], { cols: AGENT_COLS, rows: 24, env: sb.env as Record<string, string>, cwd: sb.cwd });
    ptys.push(wide);
    let wideOut = '';
    wide.onData((d) => (wideOut += d));
    await waitUntil('the wide viewer attached', () => wideOut.includes('\x1b[?1049h'));
    wide.write('g');
    await waitUntil('the agent rows', async () => (await sb.store.readOutput(job.id)).toString().includes('row 23 '));

    const pane = new TmuxPane(['env', 'PS1=$ ', 'bash', '--norc', '--noprofile', '-i'], sb.env, sb.cwd, 80, 24);
    tmux = pane;
    await waitUntil('the shell prompt', () => pane.capture().some((l) => l.startsWith('$')));
    pane.sendLine('echo shell-marker');
    await waitUntil('the marker', () => pane.capture().includes('shell-marker'));
    // Watching: the pane does not size the agent, which stays wider than it.
    pane.sendLine(`node ${entry} --read-only ${job.id}`);
    await waitUntil('attached', () => pane.format('#{alternate_on}') === '1' && pane.capture().some((l) => l.startsWith('(sized for another viewer')));
    await assertCropped(pane, 80);

    // The agent leaves its alternate screen: the screen drawn again from the worker.
    wide.write('!');
    await waitUntil('the screen drawn again', async () => (await sb.store.readOutput(job.id)).toString().includes('\x1b[?1049l'));
    await assertCropped(pane, 80);

    // The person's terminal shrinks: the screen drawn again at the new width.
    pane.resize(70, 24);
    await waitUntil('the resized screen', () => pane.capture()[0] === ROWS[0].slice(0, 70)).catch(() => assert.fail(pane.capture().join('\n')));
    await assertCropped(pane, 70);

    pane.sendBytes('\x1c');
    await waitUntil('detached', () => pane.capture().some((l) => l.startsWith(`Detached from agent ${job.id}`)));
    const after = pane.capture();
    assert.deepEqual(after.slice(0, 3), ['$ echo shell-marker', 'shell-marker', `$ node ${entry} --read-only ${job.id}`], after.join('\n'));
    assert.ok(!after.some((l) => l.startsWith('row ')), after.join('\n'));
    assert.equal(pane.format('#{alternate_on} #{wrap_flag}'), '0 1', "the person's terminal wraps again");
  });
});
