// 3. Re-attach: an agent printed 10,000 lines, then opened `less` on a
// 10,000-line file (a full-screen program on the alternate screen). Time from
// spawn to a complete screen in an outer terminal (a PTY) for a new `paddock
// attach` process and a new `tmux attach` process alike; and, in-process, a
// WorkerClient from connect to its `ready` frame (the screen the extension's
// terminal gets).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { attachViewer, killPty, spawnViewer, startPaddockAgent, startTmux, stopPaddockAgent, sleep } from '../lib/agents.mjs';
import { cliPath, paddockEnv, tempDir } from '../lib/env.mjs';
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

/** A complete screen: the last file row and less's prompt are both drawn. */
const complete = (seen) => seen.includes(LAST) && /\(END\)|long\.txt/.test(seen);

/**
 * Runs a viewer as a new process in an 80×24 PTY (the outer terminal) and
 * resolves with the ms from spawn to a complete screen in that terminal, and
 * the PTY (still running).
 */
function timeToScreen(file, args, env, what) {
  const t0 = performance.now();
  const term = spawnViewer(file, args, env);
  let seen = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      killPty(term);
      reject(new Error(`${what} did not draw the screen: ${JSON.stringify(seen.slice(-300))}`));
    }, 10_000);
    const sub = term.onData((d) => {
      seen += d.toString('utf8');
      if (complete(seen)) {
        clearTimeout(timer);
        sub.dispose();
        resolve({ ms: performance.now() - t0, term });
      }
    });
  });
}

async function tmuxAttachOnce(sock) {
  const { ms, term } = await timeToScreen('tmux', ['-S', sock, '-f', '/dev/null', 'attach'], undefined, 'tmux attach');
  killPty(term);
  return ms;
}

/** `paddock attach ID` as a person runs it; detaches with Ctrl-\ once the screen is drawn. */
async function paddockAttachOnce(pe, id) {
  const { ms, term } = await timeToScreen(process.execPath, [cliPath, 'attach', id], pe.env, 'paddock attach');
  const exited = new Promise((resolve) => term.onExit(resolve));
  term.write('\x1c');
  const gone = await Promise.race([exited.then(() => true), sleep(5000).then(() => false)]);
  if (!gone) {
    killPty(term);
    throw new Error('paddock attach did not detach on Ctrl-\\');
  }
  return ms;
}

/**
 * The floor for any viewer written for Node: a new `node` process that only
 * writes the same screen (read from a file) to its terminal and exits.
 */
async function nodeFloorOnce(screenFile) {
  const code = `process.stdout.write(require('fs').readFileSync(${JSON.stringify(screenFile)}))`;
  const { ms, term } = await timeToScreen(process.execPath, ['-e', code], undefined, 'node');
  killPty(term);
  return ms;
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
  const out = { paddock: [], paddockProcess: [], tmux: [], nodeFloor: [], connectMs: [], attachMs: [], screenBytes: 0 };
  const screenFile = join(tempDir('reattach-screen'), 'screen');
  {
    const { client, ready } = await attachViewer(store, id);
    writeFileSync(screenFile, `\x1b[?1049h\x1b[H\x1b[2J${ready.screen}`);
    client.detach();
    client.dispose();
  }
  await paddockAttachOnce(pe, id); // warm-up: the page cache holds the CLI bundle for both sides alike
  await tmuxAttachOnce(sock);
  for (let i = 0; i < repeats; i++) {
    const { client, ready, ms, connectMs, attachMs } = await attachViewer(store, id);
    out.connectMs.push(connectMs);
    out.attachMs.push(attachMs);
    if (!ready.screen.includes(LAST)) throw new Error('re-attach screen is incomplete');
    out.screenBytes = ready.screen.length;
    client.detach();
    client.dispose();
    out.paddock.push(ms);
    // The fair pair: a new viewer process drawing the screen in a terminal, each.
    out.paddockProcess.push(await paddockAttachOnce(pe, id));
    out.tmux.push(await tmuxAttachOnce(sock));
    out.nodeFloor.push(await nodeFloorOnce(screenFile));
    await sleep(50);
  }
  await stopPaddockAgent(pe, id);
  return out;
}
