/**
 * What a viewer (the window's terminal, `paddock attach`) hands the client that the protocol
 * bounds: a paste longer than one `input` frame, and a terminal sized outside 2–1000 × 2–500. A
 * real worker and PTY: the connection stays open and the agent gets every byte, in order.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkerClient } from '../../../../src/core/protocol/client';
import { inputPieces, viewerSize } from '../../../../src/core/protocol/viewerBounds';
import { MAX_INPUT_CHARS } from '../../../../src/core/protocol/messages';
import { sleep, useWorkerSandbox, waitUntil } from './fixtures';

/** About `chars` characters of text: ASCII, CJK and astral characters (two UTF-16 units each), so frame cuts fall inside pairs. */
function paste(chars: number): string {
  const words = ['paste ', '漢字', '😀', 'x', '🎉🎉', '\t', 'é'];
  let out = '';
  for (let i = 0; out.length < chars; i++) out += words[i % words.length];
  return out;
}

describe('viewer input and sizes past the protocol\'s bounds', function () {
  this.timeout(90_000);
  const use = useWorkerSandbox();

  it('cuts text into input frames at most MAX_INPUT_CHARS long, never inside a surrogate pair', () => {
    const text = paste(3 * MAX_INPUT_CHARS + 17);
    const pieces = inputPieces(text);
    assert.equal(pieces.join(''), text);
    for (const p of pieces) {
      assert.ok(p.length > 0 && p.length <= MAX_INPUT_CHARS, String(p.length));
      assert.ok(!/^[\udc00-\udfff]/.test(p) && !/[\ud800-\udbff]$/.test(p), 'a pair cut in two');
    }
    assert.deepEqual(inputPieces('ab'), ['ab']);
    assert.deepEqual(inputPieces(''), []);
    const pairAtCut = `${'a'.repeat(MAX_INPUT_CHARS - 1)}😀b`;
    assert.deepEqual(inputPieces(pairAtCut), ['a'.repeat(MAX_INPUT_CHARS - 1), '😀b']);
    assert.deepEqual(viewerSize(0, 0), { cols: 2, rows: 2 });
    assert.deepEqual(viewerSize(1.7, Number.NaN), { cols: 2, rows: 2 });
    assert.deepEqual(viewerSize(5000, 900), { cols: 1000, rows: 500 });
    assert.deepEqual(viewerSize(132.9, 43), { cols: 132, rows: 43 });
  });

  it('a 1 MB paste into an agent that reads nothing for 2 s arrives whole and in order, the connection kept', async () => {
    const out = join(use.sb.cwd, 'pasted');
    const job = await use.sb.start(['sh', '-c', `stty raw -echo; printf RAW-MODE; sleep 2; exec cat > '${out}'`]);
    const viewer = await WorkerClient.connect(use.sb.store, job.id);
    use.clients.push(viewer);
    let screen = (await viewer.attach({ cols: 80, rows: 24, readOnly: false })).screen;
    viewer.onDidOutput((d) => (screen += d));
    await waitUntil('raw mode', () => screen.includes('RAW-MODE'));
    const text = `${paste(1024 * 1024)}END`;
    const started = Date.now();
    viewer.input(text);
    viewer.input('+typed-after');
    // The window is not held while the agent does not read: the paste is queued, not waited on.
    assert.ok(Date.now() - started < 1000, `input() took ${Date.now() - started} ms`);
    const expected = Buffer.from(`${text}+typed-after`, 'utf8');
    await waitUntil('the whole paste in the agent', () => (readFileSync(out, { flag: 'a+' }).length >= expected.length) || viewer.isClosed, 60_000);
    assert.equal(viewer.isClosed, false, 'the worker kept the connection');
    await sleep(200);
    assert.ok(readFileSync(out).equals(expected), 'every byte, in order');
  });

  it('a terminal sized 0×0, 1×1 or 5000×900 keeps its connection and sizes the agent within bounds', async () => {
    // Each key makes the agent print its size.
    const job = await use.sb.start(['sh', '-c', `stty -echo -icanon; printf READY; while dd bs=1 count=1 >/dev/null 2>&1; do printf '[%s]' "$(stty size)"; done`]);
    const watcher = await WorkerClient.connect(use.sb.store, job.id);
    use.clients.push(watcher);
    let watched = (await watcher.attach({ cols: 80, rows: 24, readOnly: true })).screen;
    watcher.onDidOutput((d) => (watched += d));
    await waitUntil('the agent to start', () => watched.includes('READY'));
    // A terminal panel squeezed to nothing opens with no columns.
    const viewer = await WorkerClient.connect(use.sb.store, job.id);
    use.clients.push(viewer);
    let seen = (await viewer.attach({ cols: 0, rows: 0, readOnly: false })).screen;
    viewer.onDidOutput((d) => (seen += d));
    const sizes: [number, number, string][] = [[1, 1, '2 2'], [5000, 900, '500 1000'], [0, 40, '40 2'], [120, 30, '30 120']];
    for (const [cols, rows, stty] of sizes) {
      viewer.resize(cols, rows);
      await sleep(100);
      viewer.input('k');
      await waitUntil(`the agent sized ${stty}`, () => seen.includes(`[${stty}]`) || viewer.isClosed);
      assert.equal(viewer.isClosed, false, `the connection was kept at ${cols}×${rows}`);
    }
  });
});
