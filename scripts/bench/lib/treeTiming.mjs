// Times a change of the Agents view inside the page, so Playwright's own
// round-trips are not counted: from the pointer-down of the click that asks
// for it (the browser's own event timestamp) to the first DOM mutation at which
// the tree's rows show the result (a MutationObserver callback, which runs as
// soon as the workbench has changed the DOM, before the frame is painted).
// VS Code's tree is virtualized: "showing N rows" means the scrollable height
// is N rows tall and every rendered row says it is one of N (aria-setsize).
// A Refresh changes no row: VS Code 1.100 re-renders the visible rows when the
// extension's answer arrives, and that first mutation of the rows is taken as
// done. A VS Code that skipped it would make the wait time out, not mislead.
/* global document, window, MutationObserver -- armInPage and the waits run in the page */

/** Runs in the page: arms one measurement; `window.__treeTiming` holds the result. */
function armInPage({ expectRows }) {
  const sidebar = document.querySelector('.part.sidebar');
  const list = sidebar.querySelector('.customview-tree .monaco-list');
  const rowsEl = list.querySelector('.monaco-list-rows');
  const state = { t0: null, progressOn: null, progressOff: null, rowsAt: null, done: null, rows: null };
  window.__treeTiming = state;
  const rowHeight = () => Number.parseFloat(list.querySelector('.monaco-list-row')?.style.height ?? '22') || 22;
  const showsExpected = () => {
    const rows = [...rowsEl.querySelectorAll('.monaco-list-row')];
    const height = Number.parseFloat(rowsEl.style.height);
    const fits = Math.min(expectRows, Math.floor(list.clientHeight / rowHeight()));
    return Math.round(height / rowHeight()) === expectRows && rows.length >= fits && rows.every((r) => Number(r.getAttribute('aria-setsize')) === expectRows);
  };
  const onDown = (e) => {
    state.t0 = e.timeStamp; // same clock as performance.now()
    document.removeEventListener('pointerdown', onDown, true);
  };
  document.addEventListener('pointerdown', onDown, true);
  const observer = new MutationObserver((mutations) => {
    const now = performance.now();
    if (state.t0 === null) return;
    for (const m of mutations) {
      const el = m.target.nodeType === 1 ? m.target : m.target.parentElement;
      if (el?.classList?.contains('monaco-progress-container') && m.attributeName === 'class') {
        if (el.classList.contains('active')) state.progressOn ??= now;
        else if (el.classList.contains('done') && state.progressOn !== null) state.progressOff ??= now;
      }
      if (rowsEl.contains(el) || el === rowsEl) state.rowsAt ??= now;
    }
    // A change of count: done when the rows show it. A refresh (same rows): done at the first re-render of the rows.
    const finished = expectRows === undefined ? state.rowsAt !== null : showsExpected();
    if (finished) {
      state.done = now;
      state.rows = Math.round(Number.parseFloat(rowsEl.style.height) / rowHeight());
      observer.disconnect();
    }
  });
  observer.observe(sidebar, { subtree: true, childList: true, attributes: true, characterData: true });
}

/**
 * Arms the page, runs `act` (the click), waits for the view to finish and
 * returns { ms, gotChildrenMs, rows, phases }: ms from the pointer-down to the
 * rows updated; the view's progress bar (on while VS Code waits for
 * getChildren) gives the phases.
 */
export async function timeTreeChange(page, act, { expectRows, timeoutMs = 15_000 } = {}) {
  await page.evaluate(armInPage, { expectRows });
  await act();
  try {
    await page.waitForFunction(() => window.__treeTiming?.done !== null, undefined, { timeout: timeoutMs, polling: 50 });
  } catch (err) {
    const s = await page.evaluate(() => window.__treeTiming).catch(() => undefined);
    throw new Error(`the Agents view did not show the change within ${timeoutMs} ms (in-page state ${JSON.stringify(s)}): ${err.message}`);
  }
  const s = await page.evaluate(() => window.__treeTiming);
  const rel = (t) => (t === null ? null : t - s.t0);
  return { ms: s.done - s.t0, rows: s.rows, phases: { progressOn: rel(s.progressOn), progressOff: rel(s.progressOff), rowsTouched: rel(s.rowsAt) } };
}
