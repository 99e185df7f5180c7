/**
 * Characters xterm.js moved away from their hyperlink's rows (reverse index at the top margin,
 * index at the bottom of margins below the first row): the link is kept for the row they left, so
 * a viewer that draws them on their own row keeps it after the program forgot it (bug 144).
 */
import * as assert from 'node:assert/strict';
import { cellsBoth } from './cells';

const LINK = '\x1b]8;;https://a.example/\x1b\\';
const LINK_ID = '\x1b]8;id=x;https://a.example/\x1b\\';
const END = '\x1b]8;;\x1b\\';

describe('a viewer attaching after xterm.js moved characters away from their hyperlink\'s row', () => {
  const cases: [string, string, string][] = [
    ['the pen\'s link without an id, ESC M at the top margin, then CSI S (random programs, seed 2424)', `${LINK}TEXT\x1bM`, '\x1b[S'],
    ['a wide character in it (random programs, seed 3144)', `${LINK}WIDE\u4e00\x1bM`, '\x1b[S'],
    ['a link ended before the move', `${LINK}TEXT${END}\x1bM`, '\x1b[S'],
    ['a link with an id', `${LINK_ID}TEXT${END}\x1bM`, '\x1b[S'],
    ['moved two rows, over a row with characters', `a\r\nrow2\x1b[H${LINK}TEXT${END}\x1bM\x1bM`, '\x1b[S'],
    ['ESC D at the bottom of margins below the first row, that row deleted', `\x1b[2;4r\x1b[4;1H${LINK}TEXT${END}\x1bD`, '\x1b[4;1H\x1b[M'],
    ['the same, the row the characters are on deleted instead (the link kept for the other)', `\x1b[2;4r\x1b[4;1H${LINK}TEXT\x1bD`, '\x1b[3;1H\x1b[MX'],
    ['on the normal screen, the alternate one shown, left after the attach', `${LINK}TEXT${END}\x1bM\x1b[?1049hALT`, '\x1b[?1049l\x1b[S'],
    ['characters on their own row and moved ones in the same link', `${LINK}AB\x1bM\x1b[HCD${END}`, '\x1b[S'],
  ];
  for (const [title, before, after] of cases) {
    it(title, async () => {
      const { direct, viewer } = await cellsBoth(before, after);
      assert.equal(viewer, direct);
    });
  }
});
