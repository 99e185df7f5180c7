import * as assert from 'node:assert/strict';
import { screenLines } from '../../../../src/core/protocol/screenText';
import { trimScreen } from '../../../../src/core/protocol/trimScreen';
import { ScreenMirror } from '../../../../src/core/worker/mirror';

describe('ScreenMirror', () => {
  let m: ScreenMirror;
  beforeEach(() => (m = new ScreenMirror({ cols: 40, rows: 6 })));
  afterEach(() => m.dispose());

  it('snapshots exactly at the point it was asked, not later', async () => {
    m.write('one\r\ntwo\r\n');
    const snap = m.snapshotAt();
    m.write('three\r\n');
    const lines = trimScreen(await screenLines((await snap).screen, 40, 6));
    assert.deepEqual(lines, ['one', 'two']);
    const later = trimScreen(await screenLines((await m.snapshotAt()).screen, 40, 6));
    assert.deepEqual(later, ['one', 'two', 'three']);
  });

  it('takes raw bytes: a character cut by the snapshot point shows once the rest arrives', async () => {
    const check = Buffer.from('✓');
    m.write(Buffer.concat([Buffer.from('a'), check.subarray(0, 1)]));
    const snap = m.snapshotAt();
    m.write(Buffer.concat([check.subarray(1), Buffer.from('b')]));
    assert.deepEqual(trimScreen(await screenLines((await snap).screen, 40, 6)), ['a']);
    assert.deepEqual(trimScreen(await screenLines((await m.snapshotAt()).screen, 40, 6)), ['a✓b']);
  });

  it('keeps the alternate screen, colours and a hidden cursor in the snapshot', async () => {
    m.write('normal\r\n\x1b[?1049h\x1b[H\x1b[31mred\x1b[0m alt\x1b[?25l\x1b[?2004h\x1b[?1000h\x1b[?1006h');
    const { screen } = await m.snapshotAt();
    assert.ok(screen.includes('\x1b[?1049h'));
    assert.ok(screen.endsWith('\x1b[?25l'));
    assert.ok(screen.includes('\x1b[?2004h') && screen.includes('\x1b[?1000h') && screen.includes('\x1b[?1006h'));
    assert.ok(/\[[0-9;]*31[0-9;]*mred/.test(screen), 'red is kept');
    assert.deepEqual(trimScreen(await screenLines(screen, 40, 6)), ['red alt']);
    m.write('\x1b[?25h\x1b[?1049l');
    const back = await m.snapshotAt();
    assert.ok(back.screen.endsWith('\x1b[?25h'));
    assert.deepEqual(trimScreen(await screenLines(back.screen, 40, 6)), ['normal']);
  });

  it('replays the kitty keyboard flags the program pushed, popped and set, and alternate scroll', async () => {
    m.write('\x1b[>7u\x1b[?1007h');
    let { screen } = await m.snapshotAt();
    assert.ok(screen.includes('\x1b[>7u') && !screen.includes('\x1b[>1u'), 'the pushed flags exactly');
    assert.ok(screen.includes('\x1b[?1007h'));
    m.write('\x1b[>1u\x1b[=8;2u\x1b[?1007l');
    ({ screen } = await m.snapshotAt());
    assert.ok(screen.includes('\x1b[>7u\x1b[>9u'), 'both levels, the top one with the added bit');
    assert.ok(!screen.includes('1007'));
    m.write('\x1b[<u');
    ({ screen } = await m.snapshotAt());
    assert.ok(screen.includes('\x1b[>7u') && !screen.includes('\x1b[>9u'));
    m.write('\x1b[<5u');
    ({ screen } = await m.snapshotAt());
    assert.ok(!screen.includes('\x1b[>') && !screen.includes('\x1b[='), 'an emptied stack replays nothing');
  });

  it('goes on after ED 1 (erase above) at the last cell of a screen that has not scrolled yet (xterm.js throws there)', async () => {
    m.write('top\x1b[6;40H\x1b[1J');
    m.write('\x1b[Hafter');
    const { screen } = await m.snapshotAt();
    assert.deepEqual(trimScreen(await screenLines(screen, 40, 6)), ['after']);
  });

  it('goes on after the selective ED 1 (DECSED, CSI ? 1 J) there too', async () => {
    m.write('top\x1b[6;40H\x1b[?1J');
    m.write('\x1b[Hagain');
    const { screen } = await m.snapshotAt();
    assert.deepEqual(trimScreen(await screenLines(screen, 40, 6)), ['again']);
  });

  it('answers device attribute and cursor position queries', async () => {
    const replies: string[] = [];
    m.onDidReply((r) => replies.push(r));
    m.write('ab\x1b[6n\x1b[c');
    await m.snapshotAt();
    assert.ok(replies.includes('\x1b[1;3R'), JSON.stringify(replies));
    assert.ok(replies.some((r) => r.startsWith('\x1b[?')), 'a DA1 reply');
  });

  it('drops the oldest unparsed output in a flood and still ends on the newest screen', async () => {
    const small = new ScreenMirror({ cols: 20, rows: 3, maxBacklogBytes: 10_000, chunkBytes: 1000 });
    try {
      for (let i = 0; i < 2000; i++) small.write(`line ${i}\r\n`);
      small.write('last');
      const lines = trimScreen(await screenLines((await small.snapshotAt()).screen, 20, 3));
      assert.deepEqual(lines, ['line 1998', 'line 1999', 'last']);
      assert.ok(small.dropped > 0);
    } finally {
      small.dispose();
    }
  });

  it('joins rows wrapped at the margin into the line the program printed, from the scrollback too', async () => {
    const narrow = new ScreenMirror({ cols: 10, rows: 3 });
    try {
      // 'head' scrolls away; the 25-character line wraps over three rows, the first of them in the scrollback.
      narrow.write('head\r\n' + 'abcdefghij' + 'klmnopqrst' + 'uvwxy' + '\r\nend');
      await narrow.snapshotAt();
      assert.deepEqual(narrow.visibleLines(), ['klmnopqrst', 'uvwxy', 'end']);
      assert.deepEqual(narrow.visibleLines({ joinWrapped: true }), ['abcdefghijklmnopqrstuvwxy', 'end']);
      // A row that wraps keeps its trailing spaces: they are part of the printed line.
      narrow.write('\r\nab        cd');
      await narrow.snapshotAt();
      assert.equal(narrow.visibleLines({ joinWrapped: true }).at(-1), 'ab        cd');
    } finally {
      narrow.dispose();
    }
  });
});
