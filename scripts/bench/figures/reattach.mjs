// 3. Re-attach: an agent printed 10,000 lines, then opened `less` on a
// 10,000-line file (a full-screen program on the alternate screen). Time from
// connect to a complete screen: Paddock's `ready` frame vs a fresh tmux client
// having drawn the same screen.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { attachTmuxClient, attachViewer, killPty, startPaddockAgent, startTmux, stopPaddockAgent, sleep } from '../lib/agents.mjs';
import { paddockEnv, tempDir } from '../lib/env.mjs';
import { smallRepo } from '../lib/repo.mjs';

const LAST = 'row 10000 of the file';

function makeFile() {
  const file = join(tempDir('reattach'), 'long.txt');
  const lines = [];
  for (let i = 1; i <= 10_000; i++) lines.push(`\x1b[3${i % 8}m${i}\x1b[0m row ${i} of the file — some text to fill the line`);
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

function script(file) {
  // 10,000 coloured lines of history, then a full-screen pager at the end of a long file.
  return `i=0; while [ $i -lt 10000 ]; do i=$((i+1)); printf '\\033[3%dmhistory line %d\\033[0m of the agent output\\n' $((i%8)) $i; done; exec less -R +G ${file}`;
}

async function tmuxAttachOnce(sock) {
  const t0 = performance.now();
  const client = attachTmuxClient(sock);
  let seen = '';
  const t1 = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('tmux client did not draw the screen')), 10_000);
    const sub = client.onData((d) => {
      seen += d.toString('utf8');
      // Complete when the last file row and less's prompt are both drawn.
      if (seen.includes(LAST) && /\(END\)|long\.txt/.test(seen)) {
        clearTimeout(timer);
        sub.dispose();
        resolve(performance.now());
      }
    });
  });
  killPty(client);
  return t1 - t0;
}

export async function reattach({ repeats }) {
  const file = makeFile();
  const pe = paddockEnv('reat');
  const repo = smallRepo('reat');
  const { id, store } = await startPaddockAgent(pe, script(file), { repo });
  const { sock } = startTmux(script(file));
  // Both have printed their history and drawn the pager.
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { client, ready } = await attachViewer(store, id);
    client.dispose();
    if (ready.screen.includes(LAST)) break;
    if (Date.now() > deadline) throw new Error('the agent never showed the pager');
    await sleep(500);
  }
  const out = { paddock: [], tmux: [], connectMs: [], attachMs: [], screenBytes: 0 };
  for (let i = 0; i < repeats; i++) {
    const { client, ready, ms, connectMs, attachMs } = await attachViewer(store, id);
    out.connectMs.push(connectMs);
    out.attachMs.push(attachMs);
    if (!ready.screen.includes(LAST)) throw new Error('re-attach screen is incomplete');
    out.screenBytes = ready.screen.length;
    client.detach();
    client.dispose();
    out.paddock.push(ms);
    out.tmux.push(await tmuxAttachOnce(sock));
    await sleep(50);
  }
  await stopPaddockAgent(pe, id);
  return out;
}
