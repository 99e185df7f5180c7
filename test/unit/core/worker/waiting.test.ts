import * as assert from 'node:assert/strict';
import { WaitingDetector, WaitingReason } from '../../../../src/core/worker/waiting';
import { sleep } from './fixtures';

describe('WaitingDetector', () => {
  const detectors: WaitingDetector[] = [];
  afterEach(() => detectors.splice(0).forEach((d) => d.dispose()));

  function make(opts: { pattern?: RegExp; idleMs?: number }, screen: { text: string; cursorRow?: number }) {
    const d = new WaitingDetector({
      pattern: opts.pattern ?? null,
      idleMs: opts.idleMs ?? null,
      readScreen: () => screen.text,
      readCursorRow: () => screen.cursorRow ?? screen.text.split('\n').length - 1,
      patternCheckMs: 5,
    });
    detectors.push(d);
    const changes: (WaitingReason | null)[] = [];
    d.onDidChange((r) => changes.push(r));
    return { d, changes };
  }

  it('an explicit signal holds until `running` or input; output does not end it', () => {
    const { d, changes } = make({}, { text: '' });
    d.signal('waiting');
    d.noteOutput();
    assert.equal(d.current, 'signal');
    d.signal('running');
    d.signal('waiting');
    d.noteInput();
    assert.deepEqual(changes, ['signal', null, 'signal', null]);
  });

  it('idleness: waiting after the idle time, running again on output', async () => {
    const { d, changes } = make({ idleMs: 40 }, { text: '' });
    await sleep(80);
    assert.equal(d.current, 'idle');
    d.noteOutput();
    assert.equal(d.current, null);
    assert.deepEqual(changes, ['idle', null]);
  });

  it('the redraw after a resize does not end idle waiting; input does', async () => {
    const { d, changes } = make({ idleMs: 40 }, { text: '' });
    await sleep(80);
    assert.equal(d.current, 'idle');
    d.noteResize();
    d.noteOutput(); // the agent redraws its screen at the new size
    assert.equal(d.current, 'idle');
    d.noteInput();
    assert.equal(d.current, null);
    assert.deepEqual(changes, ['idle', null]);
  });

  it('output long after a resize is the agent working again', async () => {
    const d = new WaitingDetector({ pattern: null, idleMs: 40, readScreen: () => '', redrawMs: 20 });
    detectors.push(d);
    await sleep(80);
    d.noteResize();
    await sleep(40);
    d.noteOutput();
    assert.equal(d.current, null);
  });

  it('a pattern counts only while unanswered: a prompt left on screen after input does not flap', async () => {
    const screen = { text: 'Proceed? [y/n]' };
    const { d, changes } = make({ pattern: /Proceed\? \[y\/n\]/ }, screen);
    d.noteScreenChanged();
    await sleep(20);
    assert.equal(d.current, 'pattern');
    d.noteInput();
    screen.text = 'Proceed? [y/n] y\ngot y';
    d.noteScreenChanged();
    await sleep(20);
    assert.equal(d.current, null, 'the answered prompt does not count again');
    screen.text += '\nProceed? [y/n]';
    d.noteScreenChanged();
    await sleep(20);
    assert.equal(d.current, 'pattern', 'a new prompt does');
    assert.deepEqual(changes, ['pattern', null, 'pattern']);
  });

  it('a prompt redrawn at the cursor after the agent answered is new; the echo of the input is not', async () => {
    const screen = { text: 'Allow? [y/n] ' };
    const { d, changes } = make({ pattern: /\[y\/n\]/ }, screen);
    d.noteScreenChanged();
    await sleep(20);
    d.noteInput('y');
    screen.text = 'Allow? [y/n] y';
    d.noteOutput('y');
    d.noteScreenChanged();
    await sleep(20);
    assert.equal(d.current, null, 'the echo of the answer is not the agent asking again');
    d.noteInput('\x7f');
    screen.text = 'Allow? [y/n] ';
    d.noteOutput('\b \b');
    d.noteScreenChanged();
    await sleep(20);
    assert.equal(d.current, null, 'the echo of an erased answer is not the agent asking again');
    d.noteInput('y');
    screen.text = 'Allow? [y/n] y';
    d.noteOutput('y');
    d.noteScreenChanged();
    await sleep(20);
    screen.text = 'Allow? [y/n] ';
    d.noteOutput('\r\x1b[KAllow? [y/n] ');
    d.noteScreenChanged();
    await sleep(20);
    assert.equal(d.current, 'pattern', 'the same question redrawn in place is asked again');
    d.noteInput('n');
    screen.text = 'Allow? [y/n] n\nworking';
    d.noteOutput('n\r\nworking');
    d.noteScreenChanged();
    await sleep(20);
    assert.equal(d.current, null, 'an answered prompt off the cursor row stays answered');
    assert.deepEqual(changes, ['pattern', null, 'pattern', null]);
  });

  it('a spinner drawn after an answered prompt on its row is work, not the prompt asked again', async () => {
    const screen = { text: 'Allow? [y/n] ' };
    const d = new WaitingDetector({ pattern: /\[y\/n\]/, idleMs: null, readScreen: () => screen.text, readCursorRow: () => 0, patternCheckMs: 100 });
    detectors.push(d);
    d.noteScreenChanged();
    await sleep(150);
    assert.equal(d.current, 'pattern');
    d.noteInput('y');
    const frames = '|/-\\';
    for (let i = 0; i < 40; i++) {
      screen.text = `Allow? [y/n] y ${frames[i % 4]}`;
      d.noteOutput(`\b${frames[i % 4]}`);
      d.noteScreenChanged();
      await sleep(10);
      assert.equal(d.current, null, `working at frame ${i}`);
    }
    await sleep(250);
    assert.equal(d.current, null, 'quiet after the answered prompt with more after it: still the answered one');
    screen.text = 'Allow? [y/n]';
    d.noteOutput('\r\x1b[KAllow? [y/n] ');
    d.noteScreenChanged();
    await sleep(250);
    assert.equal(d.current, 'pattern', 'redrawn in place and quiet: asked again');
  });
});
