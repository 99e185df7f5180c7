import * as assert from 'node:assert/strict';
import { WrittenText } from '../../../../src/core/worker/writtenText';

describe('WrittenText', () => {
  it('reads the agent\'s output as text: colours and erasing kept in the line, a cursor move a line break', () => {
    const t = new WrittenText();
    t.append('\x1b[2J\x1b[6;10H\x1b[1mProceed?\x1b[0m [y/n] \x1b[24;1H');
    assert.equal(t.lastLines(5), 'Proceed? [y/n] ');
    t.append('\x1b]2;a title\x07\r\x1b[Kspin\x1b[?25lner |\b/');
    assert.equal(t.lastLines(1), 'spinner /');
    assert.equal(t.lastLines(2), 'Proceed? [y/n] \nspinner /');
  });

  it('keeps the line as a terminal shows it: a backspace or a carriage return moves back, what follows overwrites', () => {
    const t = new WrittenText();
    // prompt_toolkit's prompt: '>' then back over it and two columns on.
    t.append('\x1b[?2004h\x1b[0m\x1b[J\x1b[0m>\x08\x1b[2C\x1b[?7h');
    assert.equal(t.lastLines(1), '>');
    t.append('\r\n50%\r60%\x1b[K');
    assert.equal(t.lastLines(1), '60%');
    t.append(' x\b \b');
    assert.equal(t.lastLines(1), '60%  ');
    t.append('\r\x1b[2K\x1b[5GAsk?');
    assert.equal(t.lastLines(2), '>\n    Ask?');
  });

  it('a sequence or a character cut between two chunks is read whole', () => {
    const t = new WrittenText();
    const bytes = Buffer.from('│ > \x1b[3', 'utf8');
    t.append(bytes.subarray(0, 2)); // the first two of '│''s three bytes
    t.append(bytes.subarray(2));
    t.append('8;5;1mok');
    assert.equal(t.lastLines(1), '│ > ok');
  });

  it('keeps only the newest text, and forgets it on clear', () => {
    const t = new WrittenText();
    for (let i = 0; i < 2000; i++) t.append(`line ${i}\r\n`);
    assert.equal(t.lastLines(2), 'line 1998\nline 1999');
    t.clear();
    assert.equal(t.lastLines(2), '');
  });
});
