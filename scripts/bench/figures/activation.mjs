// 8. Extension activation in the real extension host (code-server 4.100.3,
// the harness's VS Code): the `activated in N ms` line the extension writes to
// its "Paddock" log at activation, over several window loads; and the size of
// the production dist/extension.js.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { launchChromium, provision, startCodeServer, workbenchUrl } from '../../lib/codeServer.mjs';
import { makeScratchRepo } from '../../lib/scratchRepo.mjs';
import { distRoot, onCleanup, paddockEnv, sleep, tempDir } from '../lib/env.mjs';

function filesUnder(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

/** Every `activated in N ms` in the extension's log files under code-server's logs folder. */
function activations(userData) {
  const found = [];
  let logs;
  try {
    logs = filesUnder(join(userData, 'logs'));
  } catch {
    return found;
  }
  for (const f of logs) {
    if (!f.endsWith('.log')) continue;
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(/activated in ([\d.]+) ms/g)) found.push(Number(m[1]));
  }
  return found;
}

/** Optional per-step timings an instrumented build logs (`activation steps: …`). */
function stepLines(userData) {
  const out = [];
  try {
    for (const f of filesUnder(join(userData, 'logs'))) {
      if (f.endsWith('.log')) for (const m of readFileSync(f, 'utf8').matchAll(/activation steps: (.*)/g)) out.push(m[1]);
    }
  } catch {
    // no logs
  }
  return out;
}

export async function activation({ loads, extensionPath = distRoot }) {
  const sizeKb = statSync(join(extensionPath, 'dist', 'extension.js')).size / 1024;
  provision();
  const pe = paddockEnv('act');
  const workspace = makeScratchRepo(join(tempDir('act-ws'), 'ws'));
  const server = await startCodeServer({ workspace, env: { PADDOCK_HOME: pe.home, PADDOCK_RUNTIME_DIR: pe.runtime } });
  onCleanup(() => server.stop());
  const browser = await launchChromium();
  onCleanup(() => browser.close());
  const page = browser.context.pages()[0] ?? (await browser.context.newPage());
  const url = workbenchUrl(server.url, { folder: workspace, extensionPath });
  let seen = 0;
  for (let i = 0; i < loads; i++) {
    if (i === 0) await page.goto(url);
    else await page.reload();
    const deadline = Date.now() + 90_000;
    while (activations(server.dirs.userData).length <= seen) {
      if (Date.now() > deadline) throw new Error(`no "activated in" line in the Paddock log after window load ${i + 1}`);
      await sleep(250);
    }
    seen = activations(server.dirs.userData).length;
    await sleep(1000); // let the window settle before the next reload
  }
  const ms = activations(server.dirs.userData);
  const steps = stepLines(server.dirs.userData);
  await browser.close();
  await server.stop();
  return { activationMs: ms, sizeKb, steps };
}
