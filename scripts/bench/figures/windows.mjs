// 8. Idle windows: two extension hosts over one store holding 20 idle agents —
// the CPU each host spends and the store reads it makes per idle minute.
//
// What is measured: 20 agents started with the CLI (`sh -c 'echo …; exec sleep
// 600'`; the CLI's default capacity queues all but 4, and the first window,
// configured like `paddock.maxConcurrent: 20`, launches the rest as the
// leader), then two processes that each run the core the way a window's
// extension host does (lib/windowHost.mjs: JobStore + Coordinator with its
// leader-only scheduler and store watcher + the agents model's own store reads). After a
// settle, each host's CPU (utime + stime from /proc) and its file-system reads
// under PADDOCK_HOME are taken over `seconds` of idleness. The baseline is an
// idle bare `node` process measured over the same time.
import * as esbuild from 'esbuild';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCore, startLineHost } from '../lib/core.mjs';
import { cliOk, distRoot, killGroup, onCleanup, paddockEnv, root, sleep, tempDir } from '../lib/env.mjs';
import { smallRepo } from '../lib/repo.mjs';

const TICKS = 100; // USER_HZ on Linux
const SETTLE_MS = 15_000;

function cpuTicks(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]);
}

export async function coordinatorBundle() {
  const dir = tempDir('window-core');
  const entry = join(dir, 'entry.ts');
  writeFileSync(
    entry,
    `export { Coordinator } from ${JSON.stringify(join(root, 'src/core/coordinator/index.ts'))};\n` +
      `export { JobStore } from ${JSON.stringify(join(root, 'src/core/store/index.ts'))};\n`,
  );
  const outfile = join(dir, 'core.cjs');
  await esbuild.build({ entryPoints: [entry], outfile, bundle: true, format: 'cjs', platform: 'node', target: 'node20', external: ['node-pty'], minify: true, logLevel: 'warning', absWorkingDir: root });
  return outfile;
}

/** One window's host; `report()` resolves with its read counts so far. */
export function startWindow(env, bundle, maxConcurrent) {
  const host = startLineHost(join(root, 'scripts/bench/lib/windowHost.mjs'), [bundle, join(distRoot, 'dist', 'worker.js'), String(maxConcurrent)], env);
  return { pid: host.pid, report: () => host.ask('report') };
}

export async function windows({ agents = 20, windowCount = 2, seconds = 60 } = {}) {
  const pe = paddockEnv('windows');
  const repo = smallRepo('windows');
  const ids = [];
  for (let i = 0; i < agents; i++) {
    const r = await cliOk(pe.env, ['start', '--repo', repo, '--title', `idle ${i}`, '--', 'sh', '-c', 'echo idle agent; exec sleep 600']);
    const id = r.stdout.trim();
    ids.push(id);
    onCleanup(() => cliOk(pe.env, ['stop', '--force', id]).catch(() => undefined));
  }
  const bundle = await coordinatorBundle();
  const hosts = [];
  for (let i = 0; i < windowCount; i++) {
    hosts.push(startWindow(pe.env, bundle, agents));
    await sleep(500); // the first window opens first and leads
  }
  const bare = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore', detached: true });
  onCleanup(() => killGroup(bare.pid));

  const { JobStore } = await loadCore();
  const store = new JobStore({ home: pe.home });
  const deadline = Date.now() + 120_000;
  for (;;) {
    const states = (await store.list()).map((e) => (e.ok ? e.job.lifecycle.state : 'unreadable'));
    if (states.filter((s) => s === 'running' || s === 'waiting').length === agents) break;
    if (Date.now() > deadline) throw new Error(`agents did not all start: ${states.join(', ')}`);
    await sleep(500);
  }
  await sleep(SETTLE_MS);
  const pids = [...hosts.map((h) => h.pid), bare.pid];
  const before = new Map(pids.map((pid) => [pid, cpuTicks(pid)]));
  const readsBefore = await Promise.all(hosts.map((h) => h.report()));
  await sleep(seconds * 1000);
  const readsAfter = await Promise.all(hosts.map((h) => h.report()));
  const cpu = (pid) => ((cpuTicks(pid) - before.get(pid)) / TICKS / seconds) * 100;
  const perMinute = (key) => hosts.map((_, i) => ((readsAfter[i][key] - readsBefore[i][key]) * 60) / seconds);
  return {
    agents,
    windows: windowCount,
    seconds,
    leaders: readsAfter.map((r) => r.isLeader),
    hostCpu: hosts.map((h) => cpu(h.pid)),
    bareCpu: [cpu(bare.pid)],
    recordReadsPerMinute: perMinute('recordReads'),
    otherReadsPerMinute: perMinute('otherFileReads'),
    dirListingsPerMinute: perMinute('dirListings'),
    statsPerMinute: perMinute('stats'),
  };
}
