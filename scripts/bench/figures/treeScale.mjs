// Scale: the Agents view with 500 agents in the store, most of them cleaned long
// ago (issue 17), in the real workbench: code-server 4.100.3 (VS Code 1.100.3)
// with the bench's dist/ loaded, driven by headless Chromium. Each time runs
// in the page from the click's pointer-down to the tree's rows showing the
// result (lib/treeTiming.mjs):
//   - Show Cleaned Agents (View title menu): 20 rows → 500 rows;
//   - Hide Cleaned Agents: 500 rows → 20 rows;
//   - Refresh (the view title button): a coordinator pass, a re-read of all
//     500 records and the tree asked again for every row, to the rows re-rendered;
//     with 20 rows shown (the default) and with all 500 shown.
// The baseline: the same clicks on a minimal extension's view of the same
// rows (lib/floorTreeExtension.mjs), the workbench's own cost.
import { join } from 'node:path';
import { launchChromium, provision, startCodeServer, workbenchUrl } from '../../lib/codeServer.mjs';
import { makeScratchRepo } from '../../lib/scratchRepo.mjs';
import { seedMostlyCleaned } from '../lib/cleanedStore.mjs';
import { distRoot, onCleanup, paddockEnv, sleep, tempDir } from '../lib/env.mjs';
import { timeTreeChange } from '../lib/treeTiming.mjs';
import { writeFloorTreeExtension } from '../lib/floorTreeExtension.mjs';

/** Lets the window settle between measurements (hover fades, the model's debounce). */
const SETTLE_MS = 1000;

async function openView(page, container) {
  const entry = page.locator(`.activitybar a.action-label[aria-label^="${container}"]`);
  await entry.waitFor({ timeout: 90_000 });
  await entry.click();
  await page.locator('.part.sidebar [role="treeitem"]', { hasText: 'Ended task number 1' }).first().waitFor({ timeout: 60_000 });
}

/** Show or Hide Cleaned Agents from the view's "..." menu: the menu opens untimed, the item's click is timed. */
async function toggleCleaned(page, show, expectRows) {
  // With one view in the container, its title actions sit in the container's title bar.
  await page.locator('.part.sidebar .action-label[aria-label^="Views and More Actions"]').first().click();
  const item = page.getByRole('menuitem', { name: show ? /Show Cleaned Agents/ : /Hide Cleaned Agents/ });
  await item.waitFor();
  await sleep(500); // a menu item clicked the instant the menu opens is ignored (the menu is still settling)
  return timeTreeChange(page, () => item.click(), { expectRows });
}

async function refresh(page) {
  const button = page.locator('.part.sidebar .action-label[aria-label^="Refresh"]').first();
  return timeTreeChange(page, () => button.click());
}

/** The rows the view shows now, as it labels them for screen readers. */
const visibleLabels = (page) => page.locator('.part.sidebar [role="treeitem"]').evaluateAll((rows) => rows.map((r) => r.getAttribute('aria-label') ?? ''));

/** `repeats` rounds of: Refresh, Show, Refresh with all shown, Hide; in the window `page` has open. */
async function rounds(page, { repeats, total, shown, who }) {
  const out = { show: [], hide: [], refreshShown: [], refreshAll: [], phases: { show: [], hide: [], refreshShown: [], refreshAll: [] } };
  const keep = (key, r, expect) => {
    if (expect !== undefined && r.rows !== expect) throw new Error(`${who} ${key}: the view shows ${r.rows} rows, expected ${expect}`);
    out[key].push(r.ms);
    out.phases[key].push(r.phases);
  };
  for (let i = 0; i < repeats; i++) {
    keep('refreshShown', await refresh(page), undefined);
    await sleep(SETTLE_MS);
    keep('show', await toggleCleaned(page, true, total), total);
    if (!(await visibleLabels(page)).some((l) => l.startsWith('Cleaned task number'))) throw new Error(`${who}: after Show Cleaned Agents no cleaned agent among the visible rows`);
    await sleep(SETTLE_MS);
    keep('refreshAll', await refresh(page), undefined);
    await sleep(SETTLE_MS);
    keep('hide', await toggleCleaned(page, false, shown), shown);
    if ((await visibleLabels(page)).some((l) => l.startsWith('Cleaned task number'))) throw new Error(`${who}: after Hide Cleaned Agents cleaned agents still shown`);
    await sleep(SETTLE_MS);
    console.log(`  ${who} round ${i + 1}: show ${out.show[i].toFixed(0)} ms, hide ${out.hide[i].toFixed(0)} ms, refresh (${shown} rows) ${out.refreshShown[i].toFixed(0)} ms, refresh (${total} rows) ${out.refreshAll[i].toFixed(0)} ms`);
  }
  return out;
}

export async function treeScale({ repeats, total = 500, shown = 20, extensionPath = distRoot }) {
  provision();
  const pe = paddockEnv('tree');
  const workspace = makeScratchRepo(join(tempDir('tree-ws'), 'ws'));
  const seeded = await seedMostlyCleaned(pe, workspace, { total, shown });
  const floorPath = writeFloorTreeExtension(join(tempDir('tree-floor'), 'floor-tree'));
  const env = { PADDOCK_HOME: pe.home, PADDOCK_RUNTIME_DIR: pe.runtime, FLOOR_TOTAL: String(total), FLOOR_SHOWN: String(shown) };
  const server = await startCodeServer({ workspace, env });
  onCleanup(() => server.stop());
  const browser = await launchChromium();
  onCleanup(() => browser.close());
  const page = browser.context.pages()[0] ?? (await browser.context.newPage());
  // Paddock alone in the window, then the floor extension alone in a fresh load of it.
  await page.goto(workbenchUrl(server.url, { folder: workspace, extensionPath }));
  await openView(page, 'Paddock');
  await sleep(3 * SETTLE_MS); // the window's start-up work (standings, usage) out of the way
  const paddock = await rounds(page, { repeats, total, shown, who: 'Paddock' });
  await page.goto(workbenchUrl(server.url, { folder: workspace, extensionPath: floorPath }));
  await openView(page, 'Floor Tree');
  await sleep(3 * SETTLE_MS);
  const floor = await rounds(page, { repeats, total, shown, who: 'floor' });
  await browser.close();
  await server.stop();
  return { ...seeded, paddock, floor };
}
