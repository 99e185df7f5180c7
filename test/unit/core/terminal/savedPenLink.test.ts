/**
 * A saved cursor (ESC 7, or the switch to the alternate screen) taken while the pen was in a
 * hyperlink: xterm.js restores the pen's colours and flags, and with them the mark that the pen has
 * a link or underline style, so the program goes on writing in the link it holds then (bug 145).
 */
import * as assert from 'node:assert/strict';
import { cellsBoth } from './cells';

const LINK = '\x1b]8;;https://a.example/\x1b\\';
const LINK_ID = '\x1b]8;id=x;https://a.example/\x1b\\';

describe('a viewer attaching after the program saved its cursor in a hyperlink', () => {
  const cases: [string, string, string][] = [
    ['with an id, the alternate screen shown, left with ?1049l', `${LINK_ID}A\x1b[?1049hB`, '\x1b[?1049lC'],
    ['the same, the link not written in on the alternate screen', `${LINK_ID}A\x1b[?1049h`, '\x1b[?1049lC'],
    ['without an id, ESC 7 then ESC 8', `${LINK}A\x1b7\x1b[3;1HB`, '\x1b8C'],
    ['with an id, ESC 7 then ESC 8', `${LINK_ID}A\x1b7\x1b[3;1HB`, '\x1b8C'],
    ['with an id, ESC 7 on the alternate screen, ESC 8 there', `\x1b[?1049h${LINK_ID}A\x1b7\x1b[3;1HB`, '\x1b8C'],
    ['with an id kept for a row of the normal screen, ESC 7 on the alternate screen, left and come back, ESC 8 there', `${LINK_ID}A\x1b[?1049h\x1b[2;1HB\x1b7\x1b[?1049l`, '\x1b[?1049h\x1b8C'],
    ['the link ended, the cursor saved outside it, ESC 8 in another', `${LINK_ID}A\x1b]8;;\x1b\\\x1b7B${LINK}`, '\x1b8C'],
  ];
  for (const [title, before, after] of cases) {
    it(title, async () => {
      const { direct, viewer } = await cellsBoth(before, after);
      assert.equal(viewer, direct);
    });
  }
});

describe('a viewer attaching after the program saved its cursor outside a hyperlink carried across the switch', () => {
  const cases: [string, string, string][] = [
    ['the normal screen\'s, restored after ?1047l (ESC 8)', `\x1b7${LINK}\x1b[T\x1b[?1047hTEXT`, '\x1b[?1047l\x1b8X'],
    ['the alternate screen\'s, saved on an earlier visit, restored there (ESC 8)', `\x1b[?1049h\x1b[3;1H\x1b7\x1b[?1049l${LINK}\x1b[T\x1b[?1049hTEXT`, '\x1b8X'],
    [
      'the normal screen\'s, with a set in use carried onto the alternate screen from its slot, restored after ?1047l',
      `\x1b(0\x1b7\x1b(B\x1b[?1047h\x1b7\x1b[?1047l\x1b8${LINK}AB\x1b[?1047hTEXT`,
      '\x1b[?1047l\x1b8XY',
    ],
  ];
  for (const [title, before, after] of cases) {
    it(title, async () => {
      const { direct, viewer } = await cellsBoth(before, after);
      assert.equal(viewer, direct);
    });
  }
});

describe('a viewer attaching after the program saved its cursor outside the hyperlink it keeps for a line of the scrollback', () => {
  it('restores it outside the link (ESC 8)', async () => {
    const { direct, viewer } = await cellsBoth(`\x1b[2;3H\x1b7\x1b[H${LINK}\x1b[4;1H\x1bD`, '\x1b8X');
    assert.equal(viewer, direct);
  });

  it('the same, the link carried across the switch to the alternate screen, ESC 8 after ?1047l', async () => {
    const { direct, viewer } = await cellsBoth(`\x1b[2;3H\x1b7\x1b[H${LINK}\x1b[4;1H\x1bD\x1b[?1047hTEXT`, '\x1b[?1047l\x1b8X');
    assert.equal(viewer, direct);
  });

  it('the same, the normal screen\'s margins kept (the scrollback line is pushed with margins of its own)', async () => {
    const before = `\x1b[2;3H\x1b7\x1b[H${LINK}\x1b[4;1H\x1bD\x1b[2;3r\x1b[?1047hTEXT`;
    const { direct, viewer } = await cellsBoth(before, '\x1b[?1047l\x1b[3;1H\x1b[0mrow3\nA\nB\nC');
    assert.equal(viewer, direct);
  });
});
