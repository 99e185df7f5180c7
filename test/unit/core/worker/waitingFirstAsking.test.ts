/**
 * The waiting detector while a prompt waits to be typed at the agent's first asking (FirstAsking,
 * bugs 99 and 100): typed at the pattern on the cursor's line once that line stayed the same for
 * the check interval (noted at every screen change, not only at the checks); a wait the rule reads
 * elsewhere is held back for a grace only, then raised, the prompt dropped (never typed after).
 */
import * as assert from 'node:assert/strict';
import { WaitingDetector, WaitingReason } from '../../../../src/core/worker/waiting';
import { sleep, waitUntil } from './fixtures';

describe('WaitingDetector: the first asking of a prompt to type', () => {
  const detectors: WaitingDetector[] = [];
  afterEach(() => detectors.splice(0).forEach((d) => d.dispose()));

  /** A detector for aider's pattern over `screen`, with a prompt pending until answered; when it was typed, at what screen. */
  function make(screen: { text: string; cursorRow: number }, patternCheckMs: number, firstAskingGraceMs?: number) {
    const typed: { at: number; screen: string }[] = [];
    const logged: string[] = [];
    let pending = true;
    const d = new WaitingDetector({
      pattern: /^> ?$/m,
      idleMs: null,
      readScreen: () => screen.text,
      readCursorRow: () => screen.cursorRow,
      patternCheckMs,
      firstAskingGraceMs,
      log: (m) => logged.push(m),
      firstAsking: {
        pending: () => pending,
        answer: () => (typed.push({ at: Date.now(), screen: screen.text }), (pending = false), true),
        drop: () => (pending = false),
      },
    });
    detectors.push(d);
    const changes: (WaitingReason | null)[] = [];
    d.onDidChange((r) => changes.push(r));
    return { d, typed, changes, logged, isPending: () => pending };
  }

  // Bug 99: a prompt to type at the first asking was typed at the first match anywhere on screen.
  it('answers the asking at the cursor once its line settled; matches elsewhere neither type it nor raise a wait within the grace', async () => {
    const screen = { text: 'history\n> \nmore history\n', cursorRow: 3 };
    const { d, typed, changes } = make(screen, 200);
    d.noteScreenChanged();
    await sleep(450);
    assert.deepEqual([typed, changes], [[], []], 'a bare `>` above the cursor: not typed, no wait');
    screen.text += 'Add .aider* to .gitignore? (Y)es/(N)o [Yes]: ';
    d.noteScreenChanged();
    await sleep(450);
    assert.deepEqual([typed, changes], [[], []], 'its question at the cursor is no `>`');
    // A clock below ticks from here; its first tick arms the look 200 ms on, and its `> ` shows halfway.
    let appearedAt = 0;
    for (let i = 0; typed.length === 0 && i < 60; i++) {
      if (i === 4) {
        screen.text = 'history\n> \nmore history\n> ';
        appearedAt = Date.now();
      }
      d.noteOutput(`\x1b7\x1b[B\r12:00:${i}\x1b8`); // the cursor's line stays as it is
      d.noteScreenChanged();
      await sleep(25);
    }
    await waitUntil('the prompt typed', () => typed.length > 0, 2_000);
    assert.deepEqual(typed.map((t) => t.screen), [screen.text], 'typed at its `> `, once');
    assert.ok(typed[0].at - appearedAt >= 195, `not before its line settled (typed ${typed[0].at - appearedAt} ms after it showed)`);
    d.noteInput('the prompt'); // as AgentInput types it, and the agent's echo and work
    screen.text += 'the prompt\nworking';
    screen.cursorRow = 4;
    d.noteOutput('the prompt\r\nworking');
    d.noteScreenChanged();
    await sleep(450);
    assert.deepEqual(changes, [], 'the wait it answered was never raised');
    screen.text += '\n> ';
    screen.cursorRow = 5;
    d.noteScreenChanged();
    await sleep(450);
    assert.equal(d.current, 'pattern', 'after it, the waiting rule as before: a new match is a wait');
  });

  it('a line that changes and comes back between two looks has settled only since it came back', async () => {
    const screen = { text: 'Add .aider* to .gitignore? [Yes]: ', cursorRow: 0 };
    const { d, typed } = make(screen, 400);
    d.noteScreenChanged();
    await sleep(450); // looked at: no `>` at the cursor
    const show = (line: string) => {
      screen.text = line;
      d.noteScreenChanged();
      return Date.now();
    };
    // The look comes 400 ms after the first change; the line flickers before it and again after it.
    show('> ');
    await sleep(120);
    show('> x');
    await sleep(80);
    show('> ');
    await sleep(280);
    show('> x');
    await sleep(40);
    const backAt = show('> ');
    await waitUntil('the prompt typed', () => typed.length > 0, 3_000);
    assert.ok(typed[0].at - backAt >= 395, `typed ${typed[0].at - backAt} ms after its line came back`);
  });

  it('a wait read while the prompt is pending is raised after the grace, the prompt dropped: never typed at a later asking', async () => {
    // A question, then a newline: the cursor waits on the empty line below it.
    const screen = { text: 'Restored.\n> \n', cursorRow: 2 };
    const { d, typed, changes, logged, isPending } = make(screen, 20, 300);
    const since = Date.now();
    d.noteScreenChanged();
    await sleep(150);
    assert.deepEqual(changes, [], 'held back within the grace');
    await waitUntil('the wait raised', () => d.current === 'pattern', 2_000);
    assert.ok(Date.now() - since >= 295, 'not before the grace ended');
    assert.deepEqual([typed, isPending()], [[], false], 'nothing typed, the prompt dropped');
    assert.match(logged.join('\n'), /has not asked at its cursor for 300 ms: waiting/);
    d.noteInput('y'); // the person answers; the agent shows another `>`, its cursor below it again
    screen.text = 'Restored.\n> \ny\n> \n';
    screen.cursorRow = 4;
    d.noteOutput('y\r\n> \r\n');
    d.noteScreenChanged();
    await waitUntil('the new `>` a wait', () => d.current === 'pattern', 2_000);
    screen.text += '> ';
    d.noteOutput('> ');
    d.noteScreenChanged();
    await sleep(300);
    assert.deepEqual([typed, changes], [[], ['pattern', null, 'pattern']], 'the asking at the cursor is the person\'s: the rule as without a prompt');
  });
});
