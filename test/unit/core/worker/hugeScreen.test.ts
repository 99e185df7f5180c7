/**
 * Bug 205: the largest screen the protocol allows (1000x500), every cell in a pen of its own, serialized to ~22 MB of
 * JSON: the client refused the `ready` (frame longer than 16 MiB) and closed the connection, so no viewer could attach
 * (the window's terminal reconnected for ever). The worker now sends such a screen as its text, with the modes and
 * the writing state a full screen has (the text alone lost bracketed paste, mouse reporting, the scroll region, the pen).
 */
import * as assert from 'node:assert/strict';
import { WorkerClient } from '../../../../src/core/protocol/client';
import { useWorkerSandbox, waitUntil } from './fixtures';

const PAINT = `
const cols = 1000, rows = 500;
const row = (r) => {
  let out = '\\x1b[' + (r + 1) + ';1H';
  for (let c = 0; c < cols; c++) out += '\\x1b[38;2;' + ((c * 7) % 256) + ';' + ((r * 13 + c) % 256) + ';' + ((c * r) % 256) + ';48;2;' + ((r * 3) % 256) + ';' + ((c * 11) % 256) + ';' + ((c + r) % 256) + 'm#';
  return out;
};
// A row at a time, slowly enough for the mirror to parse every one (it drops a flood's older output).
const paint = (r) => (r < rows ? process.stdout.write(row(r), () => setTimeout(() => paint(r + 1), 15)) : process.stdout.write('\\x1b[0m\\x1b[1;1HPAINTED\\x1b[1;31m'));
// Modes a program sets once (a shell's bracketed paste, a TUI's keys, mouse, focus and scroll region).
process.stdout.write('\\x1b[?2004h\\x1b[?1h\\x1b[?1002h\\x1b[?1004h\\x1b[5;20r');
process.stdin.once('data', () => paint(0));
setTimeout(() => {}, 600000);
`;

describe('the largest screen, every cell in its own pen (bug 205)', function () {
  this.timeout(120_000);
  const ctx = useWorkerSandbox();

  it('reaches a viewer that attaches, as its text, and the connection stays', async () => {
    const { sb } = ctx;
    const job = await sb.start([process.execPath, '-e', PAINT], { waitFor: ['running'] });
    const a = await WorkerClient.connect(sb.store, job.id);
    ctx.clients.push(a);
    let tail = '';
    a.onDidOutput((d) => (tail = (tail + d).slice(-100)));
    a.onDidReady((r) => (tail = r.screen.slice(-20000)));
    let aClosed: string | undefined;
    a.onDidClose((e) => (aClosed = e.reason ?? 'closed'));
    await a.attach({ cols: 1000, rows: 500, readOnly: false });
    await new Promise((r) => setTimeout(r, 500));
    a.input('go\r');
    await waitUntil('the screen painted', () => tail.includes('PAINTED') || aClosed !== undefined, 60_000);
    assert.equal(aClosed, undefined, 'the first viewer kept its connection');
    const b = await WorkerClient.connect(sb.store, job.id, { connectTimeoutMs: 5000 });
    ctx.clients.push(b);
    let closed: string | undefined;
    b.onDidClose((e) => (closed = e.reason ?? 'closed'));
    const ready = await b.attach({ cols: 1000, rows: 500, readOnly: true }).catch((err: Error) => err);
    assert.ok(!(ready instanceof Error), `no screen: ${ready instanceof Error ? ready.message : ''} (${closed})`);
    assert.ok(ready.screen.includes('PAINTED'));
    assert.ok(ready.screen.includes('#'.repeat(1000)), 'the painted rows, as text');
    assert.equal(closed, undefined);
    const state = ready.screen.slice(ready.screen.lastIndexOf('#'));
    for (const m of ['\x1b[?2004h', '\x1b[?1h', '\x1b[?1002h', '\x1b[?1004h', '\x1b[5;20r']) {
      assert.ok(state.includes(m), `lost in the text screen: ${JSON.stringify(m)}`);
    }
    const sgrs = state.split('\x1b[').filter((seq) => /^[0-9;]*m/.test(seq)).map((seq) => seq.slice(0, seq.indexOf('m')).split(';'));
    assert.ok(sgrs.some((params) => params.includes('31')), `the pen the agent writes in (red): ${JSON.stringify(sgrs)}`);
  });
});
