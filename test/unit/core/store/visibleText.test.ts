import * as assert from 'node:assert/strict';
import { project } from '../../../../src/core/store/visibleText';

const ESC = '\x1b';

describe('visible text (what a terminal shows of output)', () => {
  it('leaves out CSI, OSC, DCS and other escape sequences and silent controls, and maps each shown character back', () => {
    const raw = `a${ESC}[01;31mb${ESC}[mc${ESC}]0;title\x07d${ESC}]52;c;aGk=${ESC}\\e${ESC}Pq#0${ESC}\\f${ESC}(Bg\x00\x07h${ESC}[1Ci`;
    const p = project(raw);
    assert.equal(p.visible, 'abcdefghi');
    assert.deepEqual([...(p.map ?? [])].map((i) => raw[i]), [...'abcdefghi']);
    assert.equal(p.openAt, -1);
  });

  it('keeps TAB, LF, CR and BS (they move the cursor) and text without escapes as it is', () => {
    assert.deepEqual(project('a\tb\nc\rd\be'), { visible: 'a\tb\nc\rd\be', map: null, openAt: -1 });
  });

  it('says where a sequence still open at the end began', () => {
    assert.equal(project(`ab${ESC}[01;3`).openAt, 2);
    assert.equal(project(`ab${ESC}]0;tit`).openAt, 2);
    assert.equal(project(`ab${ESC}`).openAt, 2);
    assert.equal(project(`ab${ESC}[0m`).openAt, -1);
  });

  it('a malformed sequence ends where it breaks and the rest is text again', () => {
    assert.equal(project(`x${ESC}[12\u00e9y`).visible, 'x\u00e9y');
  });
});
