// Scale: twenty agents printing at once. Twenty agents started with the CLI in
// a small repository (capacity 20), each running a printer that writes
// ~0.5 MB/s of varied text lines (a 4 KB chunk every 8 ms, 64 different
// chunks in turn); one extension-host stand-in over the store
// (lib/windowHost.mjs, as windows.mjs starts it, maxConcurrent 20: the core
// as paddockExtension.ts configures it + the agents model's reads). After a
// settle, over `seconds`: the host's CPU (% of one core, /proc/<pid>/stat),
// the sum of the twenty workers' RSS (each job record's `execution.pid`,
// VmRSS from /proc/<pid>/status, sampled every second) and the workers' CPU.
// windowHost.mjs attaches no terminal: an open agent terminal (a viewer
// receiving the stream) is not part of the host's figure.
//
// Baseline, measured after the agents are stopped: the same twenty printers,
// each read by a bare node process holding it on a node-pty (counting the
// bytes, nothing else): the floor for any process that owns an agent's PTY.
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCore } from '../lib/core.mjs';
import { cliOk, distRoot, killGroup, onCleanup, paddockEnv, root, sleep } from '../lib/env.mjs';
import { smallRepo } from '../lib/repo.mjs';
import { coordinatorBundle, startWindow } from './windows.mjs';

const TICKS = 100; // USER_HZ on Linux
const SETTLE_MS = 10_000;
const CHUNK_MS = 8;

/** ~0.5 MB/s: a 4,096-byte chunk of varied lines every 8 ms, for `seconds`, paced by a clock (no burst catch-up past 0.5 s). */
const PRINTER = `
import sys, time
dur, seed = float(sys.argv[1]), int(sys.argv[2])
words = 'alpha beta gamma delta build test compile error warning ok pass fail src lib index module function const return await import export value'.split()
chunks = []
for c in range(64):
    text, k = '', 0
    while len(text) < 4096:
        n = 3 + (seed + c + k) % 9
        text += '[%02d:%02d:%04d] ' % (seed, c, k) + ' '.join(words[(seed * 7 + c * 13 + k * j) % len(words)] for j in range(n)) + '\\n'
        k += 1
    chunks.append((text[:4095] + '\\n').encode())
out = sys.stdout.buffer
t = time.monotonic()
end = t + dur
i = 0
while t < end:
    out.write(chunks[i % 64]); out.flush(); i += 1
    t += ${CHUNK_MS / 1000}
    d = t - time.monotonic()
    if d > 0: time.sleep(d)
    elif d < -0.5: t = time.monotonic()
`;

function cpuTicks(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]);
}

function rssMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m[1]) / 1024;
}

/** The real interpreter (a pyenv shim would put a bash + pyenv in front of every printer), or node when there is no python3. */
function printerCommand(seconds, seed) {
  let python;
  try {
    python = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
  } catch {
    python = undefined;
  }
  if (!python) throw new Error('printMany needs python3 for its printers');
  return [python, '-c', PRINTER, String(seconds), String(seed)];
}

/** Bytes an agent's output log has taken in: segments are numbered from 1 and fixed-size, the oldest dropped past the cap. */
function loggedBytes(home, id) {
  const dir = join(home, 'jobs', id, 'output');
  let seqs;
  try {
    seqs = readdirSync(dir).map((n) => /^(\d{12})\.seg$/.exec(n)).filter(Boolean).map((m) => Number(m[1]));
  } catch {
    return NaN;
  }
  if (!seqs.length) return 0;
  const last = Math.max(...seqs);
  const size = (seq) => statSync(join(dir, `${String(seq).padStart(12, '0')}.seg`)).size;
  const segment = last > 1 && seqs.includes(last - 1) ? size(last - 1) : 1024 * 1024;
  return (last - 1) * segment + size(last);
}

/** Samples the RSS sum of `pids` every second for `seconds`; returns the sums. */
async function rssSums(pids, seconds) {
  const sums = [];
  for (let s = 0; s < seconds; s++) {
    await sleep(1000);
    sums.push(pids.reduce((sum, pid) => sum + rssMb(pid), 0));
  }
  return sums;
}

export async function printMany({ agents = 20, seconds = 20 } = {}) {
  const pe = paddockEnv('printmany');
  writeFileSync(join(pe.home, 'policy.json'), `${JSON.stringify({ maxConcurrent: agents })}\n`);
  const repo = smallRepo('printmany');
  // Long enough for the starts, the settle and the window; the printers end by themselves after.
  const printFor = 90 + seconds;
  const ids = [];
  for (let i = 0; i < agents; i++) {
    const r = await cliOk(pe.env, ['start', '--repo', repo, '--title', `printer ${i}`, '--', ...printerCommand(printFor, i)]);
    const id = r.stdout.trim();
    ids.push(id);
    onCleanup(() => cliOk(pe.env, ['stop', '--force', id]).catch(() => undefined));
  }
  const bundle = await coordinatorBundle();
  const host = startWindow(pe.env, bundle, agents);

  const { JobStore } = await loadCore();
  const store = new JobStore({ home: pe.home });
  const deadline = Date.now() + 120_000;
  let jobs;
  for (;;) {
    jobs = await Promise.all(ids.map((id) => store.read(id)));
    const states = jobs.map((j) => j.lifecycle.state);
    if (jobs.every((j) => j.lifecycle.state === 'running' && (j.execution?.pid ?? j.lifecycle.workerPid))) break;
    if (Date.now() > deadline) throw new Error(`printers did not all start: ${states.join(', ')}`);
    await sleep(500);
  }
  const workers = jobs.map((j) => j.execution?.pid ?? j.lifecycle.workerPid);
  await sleep(SETTLE_MS);

  const pids = [host.pid, ...workers];
  const before = new Map(pids.map((pid) => [pid, cpuTicks(pid)]));
  const bytesBefore = ids.map((id) => loggedBytes(pe.home, id));
  const t0 = performance.now();
  const workerRss = await rssSums(workers, seconds);
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = (pid) => ((cpuTicks(pid) - before.get(pid)) / TICKS / elapsed) * 100;
  const bytesAfter = ids.map((id) => loggedBytes(pe.home, id));
  const states = (await Promise.all(ids.map((id) => store.read(id)))).map((j) => j.lifecycle.state);
  if (states.some((s) => s !== 'running')) throw new Error(`a printer ended during the window: ${states.join(', ')}`);
  const out = {
    agents,
    seconds,
    hostCpu: [cpu(host.pid)],
    workerCpu: [workers.reduce((sum, pid) => sum + cpu(pid), 0)],
    workerRss,
    workerRssEach: workers.map(rssMb),
    paddockMBps: bytesAfter.reduce((s, b, i) => s + (b - bytesBefore[i]), 0) / elapsed / 1e6,
  };
  await Promise.all(ids.map((id) => cliOk(pe.env, ['stop', '--force', id])));
  killGroup(host.pid);

  // --- baseline: the same printers, each on a bare node-pty in a node process of its own
  const ptyPath = join(root, 'node_modules', 'node-pty');
  const bare = Array.from({ length: agents }, (_, i) => {
    const [file, ...args] = printerCommand(SETTLE_MS / 1000 + seconds + 30, i);
    const code = `const p = require(${JSON.stringify(ptyPath)}).spawn(${JSON.stringify(file)}, ${JSON.stringify(args)}, { name: 'xterm-256color', cols: 80, rows: 24, cwd: ${JSON.stringify(repo)}, encoding: null });
let n = 0; p.onData((d) => { n += d.length; }); p.onExit(() => process.exit(0));
setInterval(() => process.stdout.write(n + '\\n'), 1000);`;
    const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'ignore'], detached: true, cwd: distRoot });
    onCleanup(() => killGroup(child.pid));
    let last = 0;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (t) => {
      const lines = t.trim().split('\n');
      last = Number(lines.at(-1)) || last;
    });
    return { pid: child.pid, bytes: () => last };
  });
  await sleep(SETTLE_MS);
  const bareBefore = new Map(bare.map((b) => [b.pid, cpuTicks(b.pid)]));
  const bareBytesBefore = bare.map((b) => b.bytes());
  const t1 = performance.now();
  out.bareRss = await rssSums(bare.map((b) => b.pid), seconds);
  const bareElapsed = (performance.now() - t1) / 1000;
  out.bareCpu = [bare.reduce((sum, b) => sum + ((cpuTicks(b.pid) - bareBefore.get(b.pid)) / TICKS / bareElapsed) * 100, 0)];
  out.bareMBps = bare.reduce((s, b, i) => s + (b.bytes() - bareBytesBefore[i]), 0) / bareElapsed / 1e6;
  for (const b of bare) killGroup(b.pid);
  return out;
}
