// 1. Relay throughput: an agent printing N MB of text, received by a viewer:
// through the worker to an attached WorkerClient, on a bare node-pty, and
// through tmux to an attached tmux client. For reference, the floors of any
// relay that outlives its viewer: a second `node` process that owns the PTY
// and writes every chunk to a Unix socket the viewer reads (nothing else), and
// the same with every chunk also parsed by a headless terminal, as the worker's
// screen mirror does so a re-attaching viewer gets the exact screen.
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import { attachTmuxClient, attachViewer, killPty, spawnBare, startPaddockAgent, startTmux, stopPaddockAgent, waitFor, sleep } from '../lib/agents.mjs';
import { killGroup, nodeModule, onCleanup, paddockEnv, tempDir } from '../lib/env.mjs';
import { smallRepo } from '../lib/repo.mjs';

const MARK = 'XqEND7mark';

function script(bytes) {
  // Waits for Enter, so the clock starts with the first byte; the marker is last.
  return `read x; yes 'The quick brown fox jumps over the lazy dog 0123456789 abcdefghijklmnopq' | head -c ${bytes}; echo ${MARK}; exec sleep 600`;
}

async function bare(bytes) {
  const pty = spawnBare(script(bytes));
  await sleep(150);
  let received = 0;
  const t0 = performance.now();
  pty.write('\r');
  const t1 = await waitFor((cb) => pty.onData(cb), MARK, { onChunk: (s) => (received += s.length) });
  killPty(pty);
  return { mbps: bytes / 1e6 / ((t1 - t0) / 1000), received };
}

/** The relay process of a floor: the PTY's chunks to the one socket client; its input to the PTY. */
function relayProgram(sock, bytes, mirror) {
  return `
const pty = require(${nodeModule('node-pty')}).spawn('sh', ['-c', ${JSON.stringify(script(bytes))}], { name: 'xterm-256color', cols: 80, rows: 24, encoding: null });
${mirror ? `const { Terminal } = require(${nodeModule('@xterm/headless')});
const term = new Terminal({ cols: 80, rows: 24, scrollback: 1000, allowProposedApi: true });` : ''}
require('node:net').createServer((c) => {
  pty.onData((d) => { ${mirror ? 'term.write(d); ' : ''}c.write(d); });
  c.on('data', (d) => pty.write(d.toString()));
}).listen(${JSON.stringify(sock)}, () => process.stdout.write('listening\\n'));`;
}

async function relayFloor(bytes, mirror) {
  const sock = join(tempDir('relay'), 's');
  const child = spawn(process.execPath, ['-e', relayProgram(sock, bytes, mirror)], { stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  onCleanup(() => killGroup(child.pid));
  await new Promise((resolve, reject) => {
    child.stdout.once('data', resolve);
    child.once('exit', (code) => reject(new Error(`relay floor exited ${code}`)));
  });
  const viewer = connect(sock);
  await new Promise((resolve) => viewer.once('connect', resolve));
  await sleep(150);
  let received = 0;
  const t0 = performance.now();
  viewer.write('\r');
  const t1 = await waitFor((cb) => (viewer.on('data', cb), { dispose: () => viewer.off('data', cb) }), MARK, { onChunk: (s) => (received += s.length) });
  viewer.destroy();
  killGroup(child.pid);
  return { mbps: bytes / 1e6 / ((t1 - t0) / 1000), received };
}

async function tmux(bytes) {
  const { sock } = startTmux(script(bytes));
  const client = attachTmuxClient(sock);
  await sleep(300); // the client has drawn its first screen
  let received = 0;
  const t0 = performance.now();
  client.write('\r');
  const t1 = await waitFor((cb) => client.onData(cb), MARK, { onChunk: (s) => (received += s.length) });
  killPty(client);
  return { mbps: bytes / 1e6 / ((t1 - t0) / 1000), received };
}

async function paddock(pe, repo, bytes) {
  const { id, store } = await startPaddockAgent(pe, script(bytes), { repo });
  const { client } = await attachViewer(store, id);
  let received = 0;
  let resyncs = 0;
  const readySub = client.onDidReady(() => resyncs++);
  const t0 = performance.now();
  client.input('\r');
  const t1 = await Promise.race([
    waitFor((cb) => client.onDidOutput(cb), MARK, { onChunk: (s) => (received += s.length) }),
    // A viewer that fell behind is resynced with a fresh screen: the marker may arrive there.
    new Promise((resolve) => client.onDidReady((r) => r.screen.includes(MARK) && resolve(performance.now()))),
  ]);
  readySub.dispose();
  client.dispose();
  await stopPaddockAgent(pe, id);
  return { mbps: bytes / 1e6 / ((t1 - t0) / 1000), received, resyncs };
}

/** Picks MB per run so a bare-PTY run takes about `bareSeconds` (200 MB on a quiet machine). */
export async function calibrateMb({ maxMb, bareSeconds }) {
  const r = await bare(20e6);
  return Math.max(20, Math.min(maxMb, Math.floor((r.mbps * bareSeconds) / 10) * 10));
}

export async function throughput({ repeats, mb }) {
  const bytes = mb * 1e6;
  const pe = paddockEnv('tput');
  const repo = smallRepo('tput');
  const out = { paddock: [], bare: [], tmux: [], hopFloor: [], mirrorFloor: [], paddockReceived: [], tmuxReceived: [], paddockResyncs: [] };
  for (let i = 0; i < repeats; i++) {
    const b = await bare(bytes);
    out.bare.push(b.mbps);
    const t = await tmux(bytes);
    out.tmux.push(t.mbps);
    out.tmuxReceived.push(t.received / 1e6);
    const p = await paddock(pe, repo, bytes);
    out.paddock.push(p.mbps);
    out.paddockReceived.push(p.received / 1e6);
    out.paddockResyncs.push(p.resyncs);
    const hop = await relayFloor(bytes, false);
    out.hopFloor.push(hop.mbps);
    const hopMirror = await relayFloor(bytes, true);
    out.mirrorFloor.push(hopMirror.mbps);
    console.log(`  throughput #${i + 1}: paddock ${p.mbps.toFixed(1)} MB/s (viewer got ${(p.received / 1e6).toFixed(0)} MB, ${p.resyncs} resyncs), bare ${b.mbps.toFixed(1)}, tmux ${t.mbps.toFixed(1)} (client got ${(t.received / 1e6).toFixed(1)} MB), relay floor ${hop.mbps.toFixed(1)}, with a headless terminal ${hopMirror.mbps.toFixed(1)}`);
  }
  return out;
}
