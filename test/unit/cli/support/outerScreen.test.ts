import * as assert from 'node:assert/strict';
import { AgentScreenSwitches, withoutScreenSwitches } from '../../../../src/cli/support/outerScreen';

describe('AgentScreenSwitches', () => {
  it('turns entering the alternate screen into a clear and drops leaving it, reporting it', () => {
    const f = new AgentScreenSwitches();
    assert.deepEqual(f.filter('a\x1b[?1049hb'), { text: 'a\x1b[H\x1b[2Jb', leftAlternate: false });
    assert.deepEqual(f.filter('c\x1b[?1049l'), { text: 'c', leftAlternate: true });
    assert.deepEqual(f.filter('\x1b[?25;47l'), { text: '\x1b[?25l', leftAlternate: true }, 'other modes in the same sequence stay');
    assert.deepEqual(f.filter('\x1b[?2004h'), { text: '\x1b[?2004h', leftAlternate: false });
  });

  it('recognises a switch cut between two chunks', () => {
    const f = new AgentScreenSwitches();
    assert.deepEqual(f.filter('x\x1b[?10'), { text: 'x', leftAlternate: false });
    assert.deepEqual(f.filter('49ly'), { text: 'y', leftAlternate: true });
  });

  it('makes a snapshot of the alternate screen draw without switching', () => {
    assert.equal(withoutScreenSwitches('main\x1b[?1049h\x1b[Halt'), 'main\x1b[H\x1b[2J\x1b[Halt');
  });
});
