// 2. Keystroke echo latency: one key at a time, the clock stops when the
// program's echo of that key reaches the viewer. The program is `cat` in raw
// mode (it echoes what it reads, as an agent's TUI does).
import { attachViewer, killPty, spawnBare, startPaddockAgent, stopPaddockAgent, sleep } from '../lib/agents.mjs';
import { paddockEnv } from '../lib/env.mjs';
import { smallRepo } from '../lib/repo.mjs';
import { percentile } from '../lib/stats.mjs';

const SCRIPT = 'stty raw -echo; exec cat';
const KEYS = 'abcdefghijklmnopqrstuvwxyz';

async function typeKeys({ write, onData }, count) {
  const times = [];
  let waiting;
  const sub = onData((chunk) => {
    const s = typeof chunk === 'string' ? chunk : chunk.toString('latin1');
    if (waiting && s.includes(waiting.key)) {
      const w = waiting;
      waiting = undefined;
      w.resolve(performance.now());
    }
  });
  for (let i = 0; i < count; i++) {
    const key = KEYS[i % KEYS.length];
    const echoed = new Promise((resolve, reject) => {
      waiting = { key, resolve };
      setTimeout(() => reject(new Error(`no echo of key ${i} within 5 s`)), 5000).unref();
    });
    const t0 = performance.now();
    write(key);
    times.push((await echoed) - t0);
    // A person types at most every few ms; a gap keeps keys from coalescing into one read.
    await sleep(1);
  }
  sub.dispose();
  return times;
}

export async function latency({ keystrokes, rounds }) {
  const pe = paddockEnv('lat');
  const repo = smallRepo('lat');
  const { id, store } = await startPaddockAgent(pe, SCRIPT, { repo });
  const { client } = await attachViewer(store, id);
  const pty = spawnBare(SCRIPT);
  await sleep(300);
  const paddockSide = { write: (k) => client.input(k), onData: (cb) => client.onDidOutput(cb) };
  const bareSide = { write: (k) => pty.write(k), onData: (cb) => pty.onData(cb) };
  await typeKeys(paddockSide, 50); // warm-up (JIT, first frames)
  await typeKeys(bareSide, 50);
  const all = { paddock: [], bare: [] };
  const per = { paddockP50: [], paddockP99: [], bareP50: [], bareP99: [] };
  // Alternate rounds so both see the same machine noise.
  const each = Math.ceil(keystrokes / rounds);
  for (let r = 0; r < rounds; r++) {
    const p = await typeKeys(paddockSide, each);
    const b = await typeKeys(bareSide, each);
    all.paddock.push(...p);
    all.bare.push(...b);
    per.paddockP50.push(percentile(p, 50));
    per.paddockP99.push(percentile(p, 99));
    per.bareP50.push(percentile(b, 50));
    per.bareP99.push(percentile(b, 99));
  }
  client.dispose();
  killPty(pty);
  await stopPaddockAgent(pe, id);
  return {
    paddockP50: percentile(all.paddock, 50),
    paddockP99: percentile(all.paddock, 99),
    bareP50: percentile(all.bare, 50),
    bareP99: percentile(all.bare, 99),
    perRound: per,
    keystrokes: all.paddock.length,
  };
}
