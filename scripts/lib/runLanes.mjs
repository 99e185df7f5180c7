// Runs a suite in parallel lanes: each group of its files is a child process
// (`node SCRIPT FILE… --summary NAME`), a lane takes the next group when its
// last one ends, largest first, so the lanes end close together. The suites
// spend most of their time waiting on the processes, git and sockets they start
// (measured: the unit suite used 455 s of CPU in 532 s on 2 cores), so two
// lanes finish in well under the time of one. Each group's report is printed
// whole when it ends, so the log reads as one run; the counts are summed into
// test-results/<area>-summary.json and the closing "<area>: N passed…" line.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..', '..');

/**
 * The suite files under `folders` of out/test/<area> (all when none), in groups a lane runs in one
 * process: a folder's files together (they share fixtures and modules, loaded once), a large folder
 * cut into pieces of about a tenth of the whole, so no single group holds a lane long at the end.
 * Bytes of test code stand in for duration; the largest groups start first.
 */
export function laneUnits(area, folders) {
  const base = join(root, 'out', 'test', area);
  const files = [];
  const visit = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) visit(p);
      else if (name.endsWith('.test.js')) files.push({ name: relative(base, p).slice(0, -'.test.js'.length), weight: statSync(p).size });
    }
  };
  for (const f of folders.length ? folders : ['']) {
    if (existsSync(join(base, `${f}.test.js`))) files.push({ name: f, weight: statSync(join(base, `${f}.test.js`)).size });
    else visit(join(base, f));
  }
  const piece = files.reduce((sum, f) => sum + f.weight, 0) / 10;
  const groups = new Map();
  for (const f of files) {
    // `cli/…`, `ui/…` and `core/<part>/…` are the folders.
    const parts = f.name.split('/');
    const folder = parts[0] === 'core' ? parts.slice(0, 2).join('/') : parts[0];
    const pieces = groups.get(folder) ?? [];
    groups.set(folder, pieces);
    const last = pieces.at(-1);
    if (last && last.weight + f.weight <= piece) {
      last.names.push(f.name);
      last.weight += f.weight;
    } else pieces.push({ names: [f.name], weight: f.weight });
  }
  return [...groups.values()].flat().sort((a, b) => b.weight - a.weight).map((g) => g.names);
}

/** Far above the longest group (the fault suite's flood, about 5 minutes on a loaded machine). */
const GROUP_CEILING_MS = 20 * 60_000;

function killGroup(pid) {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

export async function runLanes({ area, script, units, lanes, extraArgs = [] }) {
  const totals = { passed: 0, failed: 0, pending: 0 };
  let crashed = 0;
  const runOne = (unit, index) =>
    new Promise((done) => {
      const summary = `${area}-lane-${index}`;
      const started = Date.now();
      // Its own process group, so a group that never ends is killed with everything it started.
      const child = spawn(process.execPath, [script, ...unit, '--summary', summary, ...extraArgs], { cwd: root, env: process.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      const out = [];
      child.stdout.on('data', (c) => out.push(c));
      child.stderr.on('data', (c) => out.push(c));
      let verdict = '';
      let drain;
      // A CI run has 90 minutes: a group stuck past its ceiling is ended and reported, not waited for.
      const ceiling = setTimeout(() => {
        verdict = `killed: still running after ${GROUP_CEILING_MS / 60_000} minutes`;
        killGroup(child.pid);
      }, GROUP_CEILING_MS);
      let report = (code) => {
        report = () => undefined;
        clearTimeout(ceiling);
        clearTimeout(drain);
        process.stdout.write(`\n--- ${area} ${unit.join(' ')} (${Math.round((Date.now() - started) / 1000)} s, exit ${code}${verdict ? `, ${verdict}` : ''})\n`);
        process.stdout.write(Buffer.concat(out));
        const file = join(root, 'test-results', `${summary}-summary.json`);
        if (existsSync(file)) {
          const c = JSON.parse(readFileSync(file, 'utf8'));
          totals.passed += c.passed;
          totals.failed += c.failed + (verdict ? 1 : 0);
          totals.pending += c.pending;
          rmSync(file, { force: true });
        } else crashed++;
        done();
      };
      child.on('close', (code) => report(code));
      // Its output ends when the last process holding it does: one it left behind would hold this run too.
      child.on('exit', (code) => {
        drain = setTimeout(() => {
          verdict ||= 'a process it started still held its output after it exited, and was killed';
          killGroup(child.pid);
          child.stdout.destroy();
          child.stderr.destroy();
          report(code);
        }, 5_000);
      });
    });
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < units.length; i = next++) await runOne(units[i], i);
  };
  await Promise.all(Array.from({ length: Math.min(lanes, units.length) }, lane));
  // A group whose process died before writing its counts is a failure of its own.
  totals.failed += crashed;
  writeFileSync(join(root, 'test-results', `${area}-summary.json`), JSON.stringify(totals));
  console.log(`\n${area}: ${totals.passed} passed, ${totals.failed} failed, ${totals.pending} skipped`);
  process.exitCode = totals.failed > 0 ? 1 : 0;
}
