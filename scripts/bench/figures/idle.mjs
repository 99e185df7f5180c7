// 7. Idle worker: RSS of a worker whose agent sits idle (`sleep`), vs an idle
// bare `node` process (and, for reference, node + node-pty holding one idle
// PTY: the floor for any PTY-owning process); CPU over 10 idle seconds.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startPaddockAgent, sleep } from '../lib/agents.mjs';
import { killGroup, onCleanup, paddockEnv, root } from '../lib/env.mjs';
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

function idleNode(withPty) {
  const code = withPty
    ? `const p = require(${JSON.stringify(join(root, 'node_modules', 'node-pty'))}).spawn('sleep', ['600'], {}); p.onData(() => {}); setInterval(() => {}, 1 << 30);`
    : 'setInterval(() => {}, 1 << 30);';
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
  const bare = Array.from({ length: count }, () => idleNode(false));
  const withPty = Array.from({ length: count }, () => idleNode(true));
  await sleep(5000); // settle: startup (slow on a loaded machine) finished, garbage collected, timers armed
  const all = [...workers, ...bare, ...withPty];
  const before = new Map(all.map((pid) => [pid, cpuTicks(pid)]));
  await sleep(seconds * 1000);
  const cpu = (pid) => ((cpuTicks(pid) - before.get(pid)) / TICKS / seconds) * 100;
  return {
    paddockRss: workers.map(rssMb),
    bareRss: bare.map(rssMb),
    ptyRss: withPty.map(rssMb),
    paddockCpu: workers.map(cpu),
    bareCpu: bare.map(cpu),
    seconds,
  };
}
