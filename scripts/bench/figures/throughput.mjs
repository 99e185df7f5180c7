// 1. Relay throughput: an agent printing N MB of text, received by a viewer:
// through the worker to an attached WorkerClient, on a bare node-pty, and
// through tmux to an attached tmux client.
import { attachTmuxClient, attachViewer, killPty, spawnBare, startPaddockAgent, startTmux, stopPaddockAgent, waitFor, sleep } from '../lib/agents.mjs';
import { paddockEnv } from '../lib/env.mjs';
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
  const out = { paddock: [], bare: [], tmux: [], paddockReceived: [], tmuxReceived: [], paddockResyncs: [] };
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
    console.log(`  throughput #${i + 1}: paddock ${p.mbps.toFixed(1)} MB/s (viewer got ${(p.received / 1e6).toFixed(0)} MB, ${p.resyncs} resyncs), bare ${b.mbps.toFixed(1)}, tmux ${t.mbps.toFixed(1)} (client got ${(t.received / 1e6).toFixed(1)} MB)`);
  }
  return out;
}
