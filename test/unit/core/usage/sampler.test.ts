/**
 * The per-agent figures measured on real agents (a real worker, PTY and
 * worktree), against `ps` and `du`, on both process backends: an agent that
 * holds 150 MB, starts a `setsid` child (its own session: found only by the
 * environment marker) holding 50 MB more, and writes a 50 MB file in its
 * worktree; and a busy-loop agent's CPU share.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sampleAndRecordUsage } from '../../../../src/core/operations/recordUsage';
import { UsageSampler } from '../../../../src/core/usage/sampler';
import { CoordinatorSandbox, sleep, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';
import { useProcessBackend } from '../proc/processBackend';

const MB = 1024 * 1024;

/** Allocates and touches `mb` megabytes, then idles (pages written, so resident). */
const holdMemory = (mb: number) => `const b = Buffer.alloc(${mb} * 1024 * 1024); for (let i = 0; i < b.length; i += 4096) b[i] = 1; globalThis.keep = b;`;

const AGENT = `
  const fs = require('fs');
  const { spawn } = require('child_process');
  ${holdMemory(150)}
  fs.writeFileSync('big.bin', Buffer.alloc(50 * 1024 * 1024, 7));
  const child = spawn('setsid', [process.execPath, '-e', ${JSON.stringify(`${holdMemory(50)} require('fs').writeFileSync('child.ready', ''); setInterval(() => {}, 1000);`)}], { stdio: 'ignore', detached: false });
  fs.writeFileSync('pids.txt', process.pid + ' ' + child.pid);
  setInterval(() => {}, 1000);
`;

function psRssBytes(pids: number[]): number {
  const out = execFileSync('ps', ['-o', 'rss=', '-p', pids.join(',')], { encoding: 'utf8' });
  return out.split('\n').filter((l) => l.trim()).reduce((sum, l) => sum + Number(l.trim()) * 1024, 0);
}

function sessionPids(sid: number): number[] {
  return execFileSync('ps', ['-A', '-o', 'pid=,sess='], { encoding: 'utf8' })
    .split('\n')
    .map((l) => l.trim().split(/\s+/).map(Number))
    .filter(([, s]) => s === sid)
    .map(([pid]) => pid);
}

function duBytes(dir: string): number {
  return Number(execFileSync('du', ['-s', '-B1', dir], { encoding: 'utf8' }).split(/\s/)[0]);
}

function within(actual: number, expected: number, ratio: number, what: string): void {
  assert.ok(Math.abs(actual - expected) <= expected * ratio, `${what}: ${actual} is not within ${ratio * 100} % of ${expected}`);
}

for (const backend of ['proc', 'portable'] as const) {
  describe(`usage/sampler on real agents (${backend} backend)`, function () {
    this.timeout(90_000);
    useProcessBackend(backend);
    let sb!: CoordinatorSandbox;
    useCoordinatorSandbox((fresh) => (sb = fresh));

    it('memory of the session and of an escaped setsid child, output and disk, within 10 % of ps and du', async () => {
      const c = sb.coordinator();
      const started = await c.start({ repo: sb.repo, command: [process.execPath, '-e', AGENT] });
      const worktree = started.worktree!;
      const running = await sb.waitFor(started.id, (j) => j.lifecycle.state === 'running' && existsSync(join(worktree, 'child.ready')) && existsSync(join(worktree, 'pids.txt')), 60_000);
      const [, childPid] = readFileSync(join(worktree, 'pids.txt'), 'utf8').split(' ').map(Number);
      const sid = running.lifecycle.pid!;
      const members = sessionPids(sid);
      assert.ok(!members.includes(childPid), 'the setsid child left the agent\'s session');

      const sampler = new UsageSampler({ outputDir: (id) => sb.store.outputDir(id) });
      await sampler.prime([running]);
      await sleep(300);
      const expectedRss = psRssBytes([...members, childPid]);
      const expectedDisk = duBytes(worktree);
      const sampled = await sampleAndRecordUsage(sb.store, sampler, [running]);
      const usage = sampled.get(started.id)!.usage!;

      assert.ok(expectedRss >= 200 * MB, `ps says the agent holds ${expectedRss} bytes`);
      within(usage.rssBytes!, expectedRss, 0.1, 'resident memory');
      assert.ok(usage.rssBytes! - psRssBytes(members) >= 45 * MB, 'the escaped child counts (found by its marker)');
      assert.ok(expectedDisk >= 50 * MB);
      within(usage.diskBytes!, expectedDisk, 0.1, 'disk');
      assert.ok(usage.cpuPercent !== null && usage.cpuPercent >= 0);
      assert.equal(usage.tokensIn, null, 'no transcript: no token figure');
      assert.equal(usage.tokensOut, null);
      const onDisk = (await sb.store.read(started.id)).usage;
      assert.deepEqual(onDisk, usage, 'recorded through the store');

    });

    it('a busy loop agent uses more than 50 % CPU, as much as it measured itself', async () => {
      // The loop reports its own CPU time (process.cpuUsage) with the time, every 50 ms: the figure to match.
      const loop = `const fs = require('fs'); let last = 0; for (;;) { const now = Date.now(); if (now - last >= 50) { last = now; const u = process.cpuUsage(); fs.writeFileSync('cpu.tmp', now + ' ' + (u.user + u.system)); fs.renameSync('cpu.tmp', 'cpu.txt'); } }`;
      const c = sb.coordinator();
      const started = await c.start({ repo: sb.repo, command: [process.execPath, '-e', loop] });
      const running = await sb.waitFor(started.id, (j) => j.lifecycle.state === 'running' && existsSync(join(started.worktree!, 'cpu.txt')));
      const selfReport = () => readFileSync(join(started.worktree!, 'cpu.txt'), 'utf8').split(' ').map(Number);
      const sampler = new UsageSampler({ outputDir: (id) => sb.store.outputDir(id) });
      await sampler.prime([running]);
      const [t0, c0] = selfReport();
      // ps on Linux counts CPU time in whole seconds: the portable backend needs ten of them to measure by difference.
      await sleep(backend === 'portable' ? 11_000 : 2000);
      const [t1, c1] = selfReport();
      const usage = (await sampler.sample([running])).get(started.id)!;
      const measuredItself = ((c1 - c0) / 1000 / (t1 - t0)) * 100;
      assert.ok(Math.abs(usage.cpuPercent! - measuredItself) <= 15, `sampled ${usage.cpuPercent} %, the loop measured ${measuredItself.toFixed(1)} %`);
      // On a machine shared with other work the loop may get less than half a core; then there is nothing to claim.
      if (measuredItself > 60) assert.ok(usage.cpuPercent! > 50, `cpu ${usage.cpuPercent}`);
      else console.log(`      (the machine gave the loop ${measuredItself.toFixed(0)} % of a core)`);
    });

    it('a shell that runs short-lived busy children: their CPU counts, as much as the shell measured', async () => {
      // After each child the shell writes the time (ms) and its `times`: its own and its reaped children's CPU.
      const loop = 'while true; do awk "BEGIN{for(i=0;i<200000;i++);}"; { date +%s%3N; times; } > cpu.tmp; mv cpu.tmp cpu.txt; done';
      const c = sb.coordinator();
      const started = await c.start({ repo: sb.repo, command: ['bash', '-c', loop] });
      const running = await sb.waitFor(started.id, (j) => j.lifecycle.state === 'running' && existsSync(join(started.worktree!, 'cpu.txt')));
      const seconds = (text: string) => text.split(/\s+/).filter(Boolean).reduce((sum, t) => { const m = /^(\d+)m([\d.]+)s$/.exec(t); return sum + (m ? Number(m[1]) * 60 + Number(m[2]) : 0); }, 0);
      const accounted = () => {
        const [at, ...times] = readFileSync(join(started.worktree!, 'cpu.txt'), 'utf8').trim().split('\n');
        return { at: Number(at), seconds: seconds(times.join(' ')) };
      };
      const sampler = new UsageSampler({ outputDir: (id) => sb.store.outputDir(id) });
      await sleep(300);
      await sampler.prime([running]);
      const first = accounted();
      await sleep(backend === 'portable' ? 11_000 : 2000);
      const last = accounted();
      const usage = (await sampler.sample([running])).get(started.id)!;
      const measured = ((last.seconds - first.seconds) / ((last.at - first.at) / 1000)) * 100;
      assert.ok(Math.abs(usage.cpuPercent! - measured) <= 15, `sampled ${usage.cpuPercent} %, the shell measured ${measured.toFixed(1)} %`);
      if (measured > 60) assert.ok(usage.cpuPercent! > 50, `cpu ${usage.cpuPercent}`);
      else console.log(`      (the machine gave the loop ${measured.toFixed(0)} % of a core)`);
    });
  });
}
