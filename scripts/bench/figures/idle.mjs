// 7. Idle worker: RSS of a worker whose agent sits idle (`sleep`), vs node +
// node-pty holding one idle PTY (the floor for any PTY-owning process); for
// reference an idle bare `node` process and the same PTY feeding a headless
// terminal like the worker's screen mirror (the floor for any process that can
// hand a re-attaching viewer the exact screen); CPU over 10 idle seconds.
//
// "Idle" starts once start-up is over, and start-up includes V8's own clean-up
// of its garbage: the memory reducer runs one to three GCs some 8 s after a
// process starts (later while start-up allocation is still recent: measured up
// to ~12 s). The settle time covers that; the
// CPU spent during the settle is reported too (`*SettleCpu`), as is PSS
// (file pages of the node binary shared with every other node process count
// in RSS in full, in PSS by share).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { startPaddockAgent, sleep } from '../lib/agents.mjs';
import { killGroup, nodeModule, onCleanup, paddockEnv } from '../lib/env.mjs';
import { smallRepo } from '../lib/repo.mjs';

const TICKS = 100; // USER_HZ on Linux

function rssMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m[1]) / 1024;
}

function cpuTicks(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]); // utime + stime
}

/** Proportional set size: shared pages (the node binary) divided among the processes that map them. */
function pssMb(pid) {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Settle time: start-up done, V8's post-start-up GCs done (see above). */
const SETTLE_MS = 12_000;

/**
 * The floor for a worker that keeps the exact screen: node-pty and an idle PTY
 * whose output feeds the same headless terminal and serializer as the worker's
 * mirror (src/core/worker/mirror.ts: 80×24, 1,000 lines of scrollback) and
 * nothing else — no socket, no store, no log.
 */
const MIRROR_FLOOR = `
const { Terminal } = require(${nodeModule('@xterm/headless')});
const { SerializeAddon } = require(${nodeModule('@xterm/addon-serialize')});
const term = new Terminal({ cols: 80, rows: 24, scrollback: 1000, allowProposedApi: true });
term.loadAddon(new SerializeAddon());
const p = require(${nodeModule('node-pty')}).spawn('sh', ['-c', 'echo idle agent; exec sleep 600'], { cols: 80, rows: 24 });
p.onData((d) => term.write(d));
setInterval(() => {}, 1 << 30);`;

function idleNode(kind) {
  const code = {
    bare: 'setInterval(() => {}, 1 << 30);',
    pty: `const p = require(${nodeModule('node-pty')}).spawn('sleep', ['600'], {}); p.onData(() => {}); setInterval(() => {}, 1 << 30);`,
    mirror: MIRROR_FLOOR,
  }[kind];
  const child = spawn(process.execPath, ['-e', code], { stdio: 'ignore', detached: true });
  onCleanup(() => killGroup(child.pid));
  return child.pid;
}

export async function idle({ count, seconds }) {
  const pe = paddockEnv('idle');
  const repo = smallRepo('idle');
  const workers = [];
  for (let i = 0; i < count; i++) {
    const { id, store } = await startPaddockAgent(pe, 'echo idle agent; exec sleep 600', { repo });
    workers.push((await store.read(id)).lifecycle.workerPid);
  }
  const bare = Array.from({ length: count }, () => idleNode('bare'));
  const withPty = Array.from({ length: count }, () => idleNode('pty'));
  const withMirror = Array.from({ length: count }, () => idleNode('mirror'));
  const all = [...workers, ...bare, ...withPty, ...withMirror];
  const settleStart = new Map(all.map((pid) => [pid, cpuTicks(pid)]));
  await sleep(SETTLE_MS); // settle: startup (slow on a loaded machine) finished, garbage collected, timers armed
  const before = new Map(all.map((pid) => [pid, cpuTicks(pid)]));
  await sleep(seconds * 1000);
  const cpu = (pid) => ((cpuTicks(pid) - before.get(pid)) / TICKS / seconds) * 100;
  const settleCpu = (pid) => ((before.get(pid) - settleStart.get(pid)) / TICKS / (SETTLE_MS / 1000)) * 100;
  return {
    paddockRss: workers.map(rssMb),
    bareRss: bare.map(rssMb),
    ptyRss: withPty.map(rssMb),
    mirrorRss: withMirror.map(rssMb),
    paddockPss: workers.map(pssMb),
    barePss: bare.map(pssMb),
    ptyPss: withPty.map(pssMb),
    mirrorPss: withMirror.map(pssMb),
    paddockCpu: workers.map(cpu),
    bareCpu: bare.map(cpu),
    paddockSettleCpu: workers.map(settleCpu),
    bareSettleCpu: bare.map(settleCpu),
    settleSeconds: SETTLE_MS / 1000,
    seconds,
  };
}
