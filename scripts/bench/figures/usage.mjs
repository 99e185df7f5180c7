// 9. Per-agent figures: the CPU one sample costs the process that takes it
// (a window's extension host, `paddock list`), with 20 live agents, each in
// its own worktree. One sample = one snapshot of every process (the /proc
// backend), each agent's memory and CPU, output size, tokens (none here) and,
// at most every 30 s, its worktree's size; recorded through the store when a
// figure moved by more than 5 %. Steady-state samples are measured (the
// first one, which walks each worktree in full, is reported apart). The
// baseline: the same process reading /proc/<pid>/stat of every process once,
// synchronously (the least any per-process figure can cost).
import { readdirSync, readFileSync } from 'node:fs';
import { loadCore } from '../lib/core.mjs';
import { cliOk, onCleanup, paddockEnv, sleep } from '../lib/env.mjs';
import { smallRepo } from '../lib/repo.mjs';

function cpuMs(fn) {
  const before = process.cpuUsage();
  return Promise.resolve(fn()).then(() => {
    const d = process.cpuUsage(before);
    return (d.user + d.system) / 1000;
  });
}

function bareProcWalk() {
  let n = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      n += readFileSync(`/proc/${name}/stat`, 'utf8').length;
    } catch {
      // gone
    }
  }
  return n;
}

export async function usage({ agents, samples }) {
  const { JobStore, UsageSampler, sampleAndRecordUsage } = await loadCore();
  const pe = paddockEnv('usage');
  const store = new JobStore({ home: pe.home });
  store.policy.write({ maxConcurrent: agents });
  const repo = smallRepo('usage');
  const ids = [];
  for (let i = 0; i < agents; i++) {
    const id = (await cliOk(pe.env, ['start', '--repo', repo, '--title', `agent ${i}`, '--', 'sh', '-c', 'echo ready; exec sleep 600'])).stdout.trim();
    ids.push(id);
    onCleanup(() => cliOk(pe.env, ['stop', '--force', id]).catch(() => undefined));
  }
  const deadline = Date.now() + 120_000;
  let jobs;
  for (;;) {
    jobs = await Promise.all(ids.map((id) => store.read(id)));
    if (jobs.every((j) => j.lifecycle.state === 'running')) break;
    if (Date.now() > deadline) throw new Error(`only ${jobs.filter((j) => j.lifecycle.state === 'running').length} of ${agents} agents run`);
    await sleep(250);
  }
  const sampler = new UsageSampler({ outputDir: (id) => store.outputDir(id) });
  const out = { agents, paddock: [], bare: [], firstMs: 0, processes: readdirSync('/proc').filter((n) => /^\d+$/.test(n)).length };
  await sampler.prime(jobs);
  await sleep(500);
  out.firstMs = await cpuMs(() => sampleAndRecordUsage(store, sampler, jobs));
  for (let i = 0; i < samples; i++) {
    await sleep(1000);
    jobs = await Promise.all(ids.map((id) => store.read(id)));
    out.paddock.push(await cpuMs(() => sampleAndRecordUsage(store, sampler, jobs)));
    out.bare.push(await cpuMs(bareProcWalk));
  }
  return out;
}
