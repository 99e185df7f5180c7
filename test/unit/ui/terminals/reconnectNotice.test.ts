import * as assert from 'node:assert/strict';
import { ReconnectNotices } from '../../../../src/ui/terminals/reconnectNotice';

/** The words a terminal writes for a run of failed attempts, in order (undefined: nothing written). */
function said(notices: ReconnectNotices, reasons: string[], attachedOnce = true): (string | undefined)[] {
  return reasons.map((r) => notices.next(r, attachedOnce)?.words);
}

describe('what a terminal that cannot reconnect says (bug 153)', () => {
  it('two failures taking turns are each said once a spell, not at every retry', () => {
    const notices = new ReconnectNotices();
    const worker = 'the worker does not answer (suspended?).';
    const socket = 'nothing listens on it';
    assert.deepEqual(said(notices, [worker, socket, worker, socket, worker, worker, socket]), [
      'connection lost (the worker does not answer (suspended?)); reconnecting…',
      'still reconnecting: nothing listens on it…',
      undefined, undefined, undefined, undefined, undefined,
    ]);
    assert.equal(notices.next(worker, true), undefined);
  });

  it('a screen starts a new spell; a terminal never attached says it cannot connect', () => {
    const notices = new ReconnectNotices();
    assert.equal(notices.next('refused', false)?.first, true);
    assert.match(notices.next('refused.', false)?.words ?? 'said again', /^said again$/);
    notices.reset();
    assert.deepEqual(notices.next('refused', false), { first: true, words: 'cannot connect (refused); trying again…' });
  });

  it('a reason\'s control characters are shown, not obeyed', () => {
    assert.equal(new ReconnectNotices().next('gone\x1b[2J', true)?.words, 'connection lost (gone\\x1b[2J); reconnecting…');
  });

  it('keys typed with no screen shown are said not sent once a spell (bug 171)', () => {
    const notices = new ReconnectNotices();
    assert.match(notices.notSent(false) ?? '', /not sent: the agent's screen is not shown yet/);
    notices.reset();
    assert.match(notices.notSent(true) ?? '', /not sent: the terminal is reconnecting/);
    assert.equal(notices.notSent(true), undefined);
    // Kept for the title of the screen that comes next, which clears the dim line.
    assert.equal(notices.saidNotSent, true);
    notices.reset();
    assert.equal(notices.saidNotSent, false);
    assert.ok(notices.notSent(true));
  });
});
