/**
 * The /proc reader of process usage: one pass over /proc/<pid>/stat (parent,
 * session, start time, CPU time with the reaped children's, resident pages), with the environment read only for a
 * process not seen before (the marker is fixed at exec, so it is remembered by
 * pid and start time; an empty one, maybe caught at exec, is read again).
 *
 * The pass runs on a worker thread of its own, with plain synchronous reads:
 * the extension host asks for it, and its event loop must not walk /proc; on
 * the thread, the ~250 small reads of a machine cost about a tenth of what as
 * many promise-based reads cost (measured: 3–5 ms against 30–45 ms of CPU).
 * The thread is started on first use and ends after a minute without a
 * request; it never keeps the process alive.
 */
import { execFile } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import type { ProcessUsage, ProcessUsageSnapshot } from './processUsage';
import { statCpuTicks } from './procStat';

/** The thread's code: self-contained (it is not bundled), so plain JavaScript; the CPU rule is statCpuTicks's own source. */
const THREAD_SOURCE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const statCpuTicks = (${statCpuTicks.toString()});
const markers = new Map();
parentPort.on('message', ({ markerName, sessions, ticksPerSecond, pageBytes }) => {
  const wanted = new Set(sessions);
  const prefix = markerName + '=';
  const seen = new Set();
  const processes = [];
  let names = [];
  try { names = fs.readdirSync('/proc'); } catch (err) { parentPort.postMessage({ error: String(err) }); return; }
  for (const name of names) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    let text;
    try { text = fs.readFileSync('/proc/' + name + '/stat', 'latin1'); } catch { continue; }
    const close = text.lastIndexOf(')');
    if (close < 0) continue;
    const f = text.slice(close + 2).split(' ');
    // A zombie stays (no memory, its CPU time not yet its parent's): see processUsage.ts.
    if (f[0] === 'X') continue;
    const pid = Number(name);
    const startTime = Number(f[19]);
    const key = markerName + ':' + pid + ':' + startTime;
    seen.add(key);
    let marker = markers.get(key);
    if (marker === undefined) {
      marker = null;
      try {
        const raw = fs.readFileSync('/proc/' + name + '/environ', 'utf8');
        const entry = raw.split('\\0').find((e) => e.startsWith(prefix));
        if (entry !== undefined) marker = entry.slice(prefix.length);
        // Empty: maybe caught at exec (environ.ts), so not kept: kept, an agent's process read then
        // was never counted as the agent's for its whole life (bug 208). Read again next pass.
        if (raw !== '') markers.set(key, marker);
      } catch {
        markers.set(key, marker);
      }
    }
    const sid = Number(f[3]);
    // Only what the caller asked about crosses back: copying every process costs more than reading it.
    if (marker === null && !wanted.has(sid)) continue;
    processes.push({
      pid,
      startTime,
      ppid: Number(f[1]),
      sid,
      marker: marker === null ? undefined : marker,
      rssBytes: f[0] === 'Z' ? 0 : Number(f[21]) * pageBytes,
      // Its own and its waited-for children's (statCpuTicks).
      cpuSeconds: statCpuTicks(f) / ticksPerSecond,
      reapedCpuSeconds: (Number(f[13]) + Number(f[14])) / ticksPerSecond,
    });
  }
  for (const key of markers.keys()) if (key.startsWith(prefix.slice(0, -1) + ':') && !seen.has(key)) markers.delete(key);
  parentPort.postMessage({ at: Date.now(), processes });
});
`;

/** A thread with no request for this long ends. */
const THREAD_IDLE_MS = 60_000;
const REQUEST_TIMEOUT_MS = 30_000;

interface Units {
  ticksPerSecond: number;
  pageBytes: number;
}

let units: Promise<Units> | undefined;

function getconf(name: string, fallback: number): Promise<number> {
  return new Promise((resolve) => {
    execFile('getconf', [name], { timeout: 5000 }, (err, stdout) => {
      const value = Number(String(stdout).trim());
      resolve(!err && Number.isInteger(value) && value > 0 ? value : fallback);
    });
  });
}

/** Clock ticks per second and the page size, asked once (USER_HZ is 100 and pages 4 KiB almost everywhere). */
function systemUnits(): Promise<Units> {
  units ??= Promise.all([getconf('CLK_TCK', 100), getconf('PAGESIZE', 4096)]).then(([ticksPerSecond, pageBytes]) => ({ ticksPerSecond, pageBytes }));
  return units;
}

let thread: Worker | undefined;
let idleTimer: NodeJS.Timeout | undefined;
/** One request at a time: the thread answers in order, and a sampler never overlaps itself anyway. */
let queue: Promise<unknown> = Promise.resolve();

function walkerThread(): Worker {
  if (!thread) {
    const started = new Worker(THREAD_SOURCE, { eval: true });
    started.unref();
    started.on('exit', () => {
      if (thread === started) thread = undefined;
    });
    started.on('error', () => {
      if (thread === started) thread = undefined;
    });
    thread = started;
  }
  clearTimeout(idleTimer);
  idleTimer = setTimeout(() => void thread?.terminate(), THREAD_IDLE_MS);
  idleTimer.unref();
  return thread;
}

function ask(markerName: string, sessions: readonly number[], u: Units): Promise<{ at: number; processes: ProcessUsage[] }> {
  return new Promise((resolve, reject) => {
    const worker = walkerThread();
    const done = (fn: () => void) => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      fn();
    };
    const onMessage = (m: { error?: string; at: number; processes: ProcessUsage[] }) => done(() => (m.error ? reject(new Error(m.error)) : resolve(m)));
    const onError = (err: Error) => done(() => reject(err));
    const onExit = () => done(() => reject(new Error('the /proc reader thread ended')));
    const timer = setTimeout(() => done(() => reject(new Error('the /proc reader thread did not answer'))), REQUEST_TIMEOUT_MS);
    timer.unref();
    worker.on('message', onMessage);
    worker.once('error', onError);
    worker.once('exit', onExit);
    worker.postMessage({ markerName, sessions, ...u });
  });
}

/** The processes carrying the marker (any value) or in one of `sessions`; the others are left out. */
export async function procfsUsageSnapshot(markerName: string, sessions: readonly number[]): Promise<ProcessUsageSnapshot> {
  const u = await systemUnits();
  const next = queue.then(() => ask(markerName, sessions, u));
  queue = next.catch(() => undefined);
  const { at, processes } = await next;
  return { at, processes, cpuResolutionSeconds: 1 / u.ticksPerSecond };
}
