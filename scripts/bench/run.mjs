// `npm run bench`: Paddock's speed against the physical limits and against
// tmux, measured in one run on this machine. Every Paddock figure has its
// baseline measured alongside it (interleaved where it can be), because on a
// shared machine only ratios mean something.
//
//   node scripts/bench/run.mjs [--only a,b,...] [--quick] [--check] [--on-tmp]
//   figures: throughput, latency, reattach, start, startMany, cleanMany, startCopy, list, idle, windows, printMany, usage, activation, merge, standing, treeScale
//
// Prints a table and writes bench-results/latest.json. With --check it exits 1
// when a row misses its goal (without, it only reports; a figure that could not
// be measured exits 1 either way). Uses temp PADDOCK_HOME
// and PADDOCK_RUNTIME_DIR dirs and removes every process and dir it made.
// On a journal-less ext4 temp dir it measures on a journaled scratch ext4
// instead (lib/scratchFs.mjs says why); --on-tmp measures on the temp dir anyway.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { cleanupAll, dropSnapshot, root, snapshotDist } from './lib/env.mjs';
import { useJournaledScratch } from './lib/scratchFs.mjs';
import { summary, median } from './lib/stats.mjs';
import { atMost, deltaAtMost, judge, ratioAtLeast, ratioAtMost, report } from './lib/goals.mjs';
import { calibrateMb, throughput } from './figures/throughput.mjs';
import { latency } from './figures/latency.mjs';
import { reattach } from './figures/reattach.mjs';
import { startCleanup } from './figures/startCleanup.mjs';
import { startMany } from './figures/startMany.mjs';
import { cleanMany } from './figures/cleanMany.mjs';
import { startCopy } from './figures/startCopy.mjs';
import { list } from './figures/list.mjs';
import { idle } from './figures/idle.mjs';
import { activation } from './figures/activation.mjs';
import { windows } from './figures/windows.mjs';
import { printMany } from './figures/printMany.mjs';
import { merge } from './figures/merge.mjs';
import { usage } from './figures/usage.mjs';
import { standing } from './figures/standing.mjs';
import { treeScale } from './figures/treeScale.mjs';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const check = args.includes('--check');
const only = args.includes('--only') ? new Set(args[args.indexOf('--only') + 1].split(',')) : undefined;
const wants = (name) => !only || only.has(name);

const rows = [];
const raw = {};
const errors = [];

/**
 * One table row: medians of `paddock` and `baseline` samples, judged against
 * `goal` (one of lib/goals.mjs, or several that must all hold).
 */
function row({ figure, unit, paddock, baseline, goal, spread, note }) {
  const p = median(paddock);
  const b = baseline?.length ? median(baseline) : NaN;
  const verdict = judge(goal, { paddock: p, baseline: b });
  rows.push({
    figure,
    unit,
    paddock: p,
    baseline: b,
    ratio: p / b,
    delta: p - b,
    goal: verdict.text,
    shows: verdict.shows,
    checked: verdict.checked,
    pass: verdict.pass,
    paddockSpread: spread ?? summary(paddock),
    baselineSpread: baseline?.length ? summary(baseline) : null,
    note: note ?? '',
  });
}

async function figure(name, fn) {
  if (!wants(name)) return;
  const t0 = Date.now();
  console.log(`[bench] ${name}…`);
  try {
    raw[name] = await fn();
  } catch (err) {
    errors.push(`${name}: ${err.message}`);
    console.log(`[bench] ${name} FAILED: ${err.stack ?? err.message}`);
  } finally {
    await cleanupAll();
  }
  console.log(`[bench] ${name} took ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}

const fmt = (v, unit) => {
  if (!Number.isFinite(v)) return '—';
  const digits = unit === 'ms' && v < 10 ? 2 : v < 100 ? 1 : 0;
  return `${v.toFixed(digits)}`;
};

function render() {
  const header = ['Figure', 'Paddock', 'Baseline', 'Ratio', 'Goal', 'OK', 'Paddock median [min–max] (n)', 'Baseline median [min–max] (n)'];
  const lines = rows.map((r) => {
    const ratio = r.shows === 'delta' ? `${r.delta >= 0 ? '+' : ''}${r.delta.toFixed(2)} ${r.unit}` : Number.isFinite(r.ratio) ? `${r.ratio.toFixed(2)}×` : '—';
    const sp = (s) => (s ? `${fmt(s.median, r.unit)} [${fmt(s.min, r.unit)}–${fmt(s.max, r.unit)}] (${s.n})` : '—');
    return [
      `${r.figure}${r.note ? ` (${r.note})` : ''}`,
      `${fmt(r.paddock, r.unit)} ${r.unit}`,
      Number.isFinite(r.baseline) ? `${fmt(r.baseline, r.unit)} ${r.unit}` : '—',
      ratio,
      r.goal,
      !r.checked ? '—' : r.pass ? 'yes' : 'NO',
      sp(r.paddockSpread),
      sp(r.baselineSpread),
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const out = [header, widths.map((w) => '-'.repeat(w)), ...lines].map((cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`);
  return out.join('\n');
}

const started = Date.now();
const machine = {
  cpus: cpus().length,
  model: cpus()[0]?.model,
  node: process.version,
  git: execFileSync('git', ['--version'], { encoding: 'utf8' }).trim(),
  tmux: execFileSync('tmux', ['-V'], { encoding: 'utf8' }).trim(),
  loadBefore: loadavg(),
};

const scratch = useJournaledScratch({ disabled: args.includes('--on-tmp') });
machine.filesystem = scratch.filesystem;
const snapshot = snapshotDist();
console.log(`[bench] measuring a private copy of dist/ in ${snapshot}`);
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, async () => {
    console.log(`[bench] ${sig}: cleaning up`);
    await cleanupAll();
    dropSnapshot();
    scratch.release();
    process.exit(130);
  });
}

await figure('throughput', async () => {
  const mb = Number(process.env.PADDOCK_BENCH_MB) || (await calibrateMb({ maxMb: 200, bareSeconds: quick ? 1 : 2.5 }));
  const r = await throughput({ repeats: quick ? 2 : 3, mb });
  const note = `${mb} MB per run${mb < 200 ? ', reduced from 200 to fit the time budget' : ''}`;
  const floors = `a second \`node\` owning the PTY and writing each chunk to a socket, nothing else: ${median(r.hopFloor).toFixed(1)} MB/s (${(median(r.hopFloor) / median(r.bare)).toFixed(2)}×); that and a headless terminal parsing every byte: ${median(r.mirrorFloor).toFixed(1)} MB/s (${(median(r.mirrorFloor) / median(r.bare)).toFixed(2)}×)`;
  row({ figure: 'Relay throughput vs bare PTY', unit: 'MB/s', paddock: r.paddock, baseline: r.bare, goal: ratioAtLeast(0.9), note: `${note}; ${floors}` });
  row({ figure: 'Relay throughput vs tmux + client', unit: 'MB/s', paddock: r.paddock, baseline: r.tmux, goal: ratioAtLeast(1.0), note: `tmux client got ${median(r.tmuxReceived).toFixed(1)} MB, Paddock viewer ${median(r.paddockReceived).toFixed(0)} MB` });
  return { ...r, mb };
});

await figure('latency', async () => {
  const r = await latency({ keystrokes: quick ? 400 : 1000, rounds: 5 });
  const note = `${r.keystrokes} keys each`;
  row({ figure: 'Keystroke echo p50', unit: 'ms', paddock: [r.paddockP50], baseline: [r.bareP50], goal: deltaAtMost(1, 'ms'), spread: summary(r.perRound.paddockP50), note });
  rows.at(-1).baselineSpread = summary(r.perRound.bareP50);
  row({ figure: 'Keystroke echo p99', unit: 'ms', paddock: [r.paddockP99], baseline: [r.bareP99], goal: deltaAtMost(5, 'ms'), spread: summary(r.perRound.paddockP99), note });
  rows.at(-1).baselineSpread = summary(r.perRound.bareP99);
  return r;
});

await figure('reattach', async () => {
  const r = await reattach({ repeats: quick ? 8 : 20 });
  row({ figure: 'Re-attach, 10k lines + less: `paddock attach` process vs `tmux attach` process, to a complete screen', unit: 'ms', paddock: r.paddockProcess, baseline: r.tmux, goal: ratioAtMost(1.0), note: `a new \`node\` process only writing the same screen: ${median(r.nodeFloor).toFixed(1)} ms` });
  row({ figure: 'Re-attach: `paddock attach` process vs a `node` process writing the same screen (the floor for a Node viewer)', unit: 'ms', paddock: r.paddockProcess, baseline: r.nodeFloor, goal: report('(info)') });
  row({ figure: 'Re-attach in-process (WorkerClient connect → ready)', unit: 'ms', paddock: r.paddock, baseline: [], goal: atMost(20, 'ms'), note: `median connect ${median(r.connectMs).toFixed(1)} ms + attach→ready ${median(r.attachMs).toFixed(1)} ms, screen ${(r.screenBytes / 1024).toFixed(1)} KB` });
  return r;
});

await figure('start', async () => {
  const r = await startCleanup({ repeats: quick ? 2 : 5 });
  row({ figure: 'Start to first output, 5,000-file repo, as a window starts it (coordinator running)', unit: 'ms', paddock: r.windowStart, baseline: r.rawStart, goal: ratioAtMost(1.1), note: 'baseline: git worktree add + spawn from a running process' });
  row({ figure: 'Start to first output, 5,000-file repo, `paddock start` process', unit: 'ms', paddock: r.paddockStart, baseline: r.rawStart, goal: report('(info: + a Node process start and the CLI bundle)') });
  row({ figure: 'Cleanup incl. evidence vs worktree remove + branch -D', unit: 'ms', paddock: r.paddockCleanup, baseline: r.rawCleanup, goal: report('(info: the capture alone costs more)') });
  const floor = r.rawCleanup.map((v, i) => v + r.rawCapture[i]);
  row({ figure: 'Cleanup vs raw git doing the same evidence + removal', unit: 'ms', paddock: r.paddockCleanup, baseline: floor, goal: ratioAtMost(1.3), note: 'raw: temporary index with git\'s racy rule, commit with reflog-only commits, ref, patch proven against the base, tar of ignored files, fsync; worktree remove + branch -D' });
  const minimal = r.rawCleanup.map((v, i) => v + r.rawMinimalCapture[i]);
  row({ figure: 'the same, vs raw git\'s fewest commands (no proof, no ignored files, no reflog-only commits)', unit: 'ms', paddock: r.paddockCleanup, baseline: minimal, goal: report('(info)') });
  return r;
});

await figure('startMany', async () => {
  const r = await startMany({ repeats: quick ? 1 : 3, agents: 10 });
  const cpu = (xs) => `${median(xs).toFixed(0)} ms`;
  row({ figure: `Start ${r.agents} agents at once (capacity ${r.agents}), 5,000-file repo, to the last first output, as a window starts them`, unit: 'ms', paddock: r.window, baseline: r.raw, goal: ratioAtMost(1.5), note: `baseline: ${r.agents} \`git worktree add\` + spawn side by side; CPU used by the whole machine meanwhile: Paddock ${cpu(r.windowCpu)}, raw ${cpu(r.rawCpu)} (2 cores)` });
  row({ figure: `Start ${r.agents} agents at once, ${r.agents} \`paddock start\` processes side by side`, unit: 'ms', paddock: r.paddock, baseline: r.raw, goal: report('(info: + a Node process start and the CLI bundle each)') });
  return r;
});

await figure('cleanMany', async () => {
  const r = await cleanMany({ repeats: quick ? 1 : 2, agents: 20 });
  const retries = r.rawRetries ? `; raw git ran again ${r.rawRetries}× after a lock held by a sibling` : '';
  row({ figure: `Clean up ${r.agents} ended agents at once, 5,000-file repo, each with the realistic change set, to the last cleanup complete`, unit: 'ms', paddock: r.paddock, baseline: r.raw, goal: ratioAtMost(1.5), note: `${r.agents} \`paddock cleanup ID --yes\` processes side by side (no --all); baseline: the same evidence captures + worktree remove + branch -D with raw git, side by side${retries}; ${r.agents} \`paddock show\` side by side: ${median(r.cliFloor).toFixed(0)} ms; the machine's CPU during each side (median): Paddock ${median(r.paddockCpu).toFixed(0)} ms, raw git ${median(r.rawCpu).toFixed(0)} ms; last round, ms after the start: cleanup requested ${r.breakdown.at(-1).requested}, captured ${r.breakdown.at(-1).captured}, complete ${r.breakdown.at(-1).complete}` });
  return r;
});

await figure('startCopy', async () => {
  const r = await startCopy({ repeats: quick ? 2 : 5 });
  row({ figure: `Start with ${r.mb} MB of ignored files copied, as a window starts it, vs git worktree add + cp -r`, unit: 'ms', paddock: r.window, baseline: r.raw, goal: ratioAtMost(1.2), note: '5,000-file repo, 200 files + .env via .paddock.json' });
  row({ figure: 'Start with the same files copied, `paddock start` process', unit: 'ms', paddock: r.paddock, baseline: r.raw, goal: report('(info: + a Node process start and the CLI bundle)') });
  return r;
});

await figure('merge', async () => {
  const r = await merge({ repeats: quick ? 3 : 7 });
  row({ figure: 'Merge of an agent branch (true merge), 5,000-file repo, as a window runs it, vs git merge', unit: 'ms', paddock: r.window, baseline: r.raw, goal: ratioAtMost(1.5) });
  row({ figure: 'Merge, `paddock merge` process, vs git merge', unit: 'ms', paddock: r.paddock, baseline: r.raw, goal: report('(info: + a Node process start and the CLI bundle)'), note: `\`node -e ''\` alone: ${median(r.nodeStart).toFixed(0)} ms` });
  return r;
});

await figure('list', async () => {
  const r = await list({ repeats: quick ? 3 : 7, jobs: 1000 });
  row({ figure: `list --json, ${r.jobs} jobs vs bare read+parse`, unit: 'ms', paddock: r.paddock, baseline: r.bare, goal: ratioAtMost(1.2) });
  return r;
});

await figure('idle', async () => {
  const r = await idle({ count: 3, seconds: 10 });
  row({ figure: 'Idle worker RSS vs node + node-pty + an idle PTY', unit: 'MB', paddock: r.paddockRss, baseline: r.ptyRss, goal: ratioAtMost(1.1), note: `idle bare node: ${median(r.bareRss).toFixed(1)} MB; node + node-pty + the screen mirror's headless terminal alone: ${median(r.mirrorRss).toFixed(1)} MB (${(median(r.mirrorRss) / median(r.ptyRss)).toFixed(2)}× the baseline; Paddock ${(median(r.paddockRss) / median(r.mirrorRss)).toFixed(2)}× it)` });
  row({ figure: `Idle worker CPU over ${r.seconds} s`, unit: '%', paddock: r.paddockCpu, baseline: r.bareCpu, goal: atMost(0.5, '%', '~0 % (≤ 0.5)') });
  return r;
});

await figure('windows', async () => {
  const r = await windows({ agents: 20, windowCount: 2, seconds: quick ? 20 : 60 });
  const who = `per window (${r.leaders.map((l) => (l ? 'leader' : 'follower')).join(', ')})`;
  const what = `a node process per window running the core as paddockExtension.ts configures it, over ${r.seconds} s`;
  row({ figure: `Extension host CPU, ${r.agents} idle agents, ${r.windows} windows`, unit: '%', paddock: [Math.max(...r.hostCpu)], baseline: r.bareCpu, goal: atMost(0.5, '%', '≤ 0.5 % each (the busiest)'), spread: summary(r.hostCpu), note: `${who}; ${what}; baseline: idle bare node` });
  const others = (key) => r[key].map((v) => v.toFixed(0)).join(' / ');
  row({ figure: 'Store reads per idle minute per window', unit: 'reads', paddock: r.recordReadsPerMinute, baseline: [], goal: report(), note: `record files read, ${who}; also per minute: other store files ${others('otherReadsPerMinute')}, dir listings ${others('dirListingsPerMinute')}, stats ${others('statsPerMinute')}` });
  return r;
});

await figure('printMany', async () => {
  const r = await printMany({ agents: 20, seconds: quick ? 10 : 20 });
  const what = `${r.agents} agents each printing ~0.5 MB/s of varied lines (agents' logs took ${r.paddockMBps.toFixed(1)} MB/s in all, bare PTYs read ${r.bareMBps.toFixed(1)} MB/s), over ${r.seconds} s`;
  row({ figure: `Extension host CPU with the Agents view open, ${r.agents} agents printing at once`, unit: '%', paddock: r.hostCpu, baseline: [], goal: atMost(5, '%'), note: `${what}; windowHost.mjs (core + agents model's reads) attaches no terminal` });
  row({ figure: `Total RSS of ${r.agents} printing agents' workers vs ${r.agents} node + node-pty readers of the same printers`, unit: 'MB', paddock: r.workerRss, baseline: r.bareRss, goal: report(), note: 'sampled each second; workers from each record\'s execution.pid' });
  row({ figure: `Total CPU of those ${r.agents} workers vs the ${r.agents} bare node-pty readers`, unit: '%', paddock: r.workerCpu, baseline: r.bareCpu, goal: report('(info)'), note: '% of one core, summed' });
  return r;
});

await figure('usage', async () => {
  const r = await usage({ agents: 20, samples: quick ? 5 : 15 });
  row({ figure: `Per-agent figures: CPU per sample, ${r.agents} live agents`, unit: 'ms', paddock: r.paddock, baseline: r.bare, goal: atMost(20, 'ms'), note: `/proc backend, ${r.processes} processes on the machine; first sample (full worktree walks) ${r.firstMs.toFixed(1)} ms; baseline: one sync read of every /proc/<pid>/stat` });
  return r;
});

await figure('activation', async () => {
  const r = await activation({ loads: quick ? 2 : 4 });
  row({ figure: 'Extension activation (extension host)', unit: 'ms', paddock: r.activationMs, baseline: [], goal: atMost(50, 'ms') });
  row({ figure: 'dist/extension.js size (production)', unit: 'KB', paddock: [r.sizeKb], baseline: [], goal: atMost(400, 'KB') });
  return r;
});

await figure('standing', async () => {
  const r = await standing({ agents: 50, files: 500, repeats: quick ? 2 : 5 });
  const note = `${r.agents} agents, ${r.files}-file repo; baseline: raw rev-list --count only`;
  row({ figure: `Ahead/behind + diff + uncommitted, ${r.agents} agents, cold`, unit: 'ms', paddock: r.cold, baseline: r.raw, goal: atMost(1000, 'ms'), note });
  row({ figure: 'Event-loop lag while computing them', unit: 'ms', paddock: r.coldLag, baseline: r.rawLag, goal: atMost(50, 'ms'), note: 'worst lateness of a 5 ms timer; baseline: during the raw rev-list run' });
  row({ figure: `Refresh of ${r.agents} agents with nothing changed (cache hit)`, unit: 'ms', paddock: r.warm, baseline: r.raw, goal: report('(info)'), note: 'HEAD read from git\'s files + a stat per agent: no process' });
  return r;
});

await figure('treeScale', async () => {
  const r = await treeScale({ repeats: quick ? 3 : 7 });
  const p = r.paddock;
  const f = r.floor;
  const store = `${r.total} agents, ${r.cleaned} cleaned 48 h+ ago, ${r.shown} ended not cleaned`;
  // Where the time goes, from the view's progress bar (on while VS Code waits for the extension's getChildren).
  const phases = (key) => {
    const at = (k) => median(p.phases[key].map((x) => x[k]).filter((v) => v !== null));
    return `median ms after the click: getChildren asked ${at('progressOn').toFixed(0)}, answered ${at('progressOff').toFixed(0)}, rows changed ${at('rowsTouched').toFixed(0)}`;
  };
  const ui = 'real workbench (code-server + Chromium), in-page time from the click\'s pointer-down to the rows showing it; baseline: the same clicks on a minimal extension\'s view of the same rows (the workbench\'s own cost)';
  row({ figure: `Agents view, ${r.total} agents in the store (most cleaned): Show Cleaned Agents, ${r.shown} → ${r.total} rows rendered`, unit: 'ms', paddock: p.show, baseline: f.show, goal: atMost(50, 'ms'), note: `${store}; ${ui}; ${phases('show')}` });
  row({ figure: `Agents view, same store: Hide Cleaned Agents, ${r.total} → ${r.shown} rows rendered`, unit: 'ms', paddock: p.hide, baseline: f.hide, goal: atMost(50, 'ms'), note: phases('hide') });
  row({ figure: `Agents view, same store: full Refresh (coordinator pass + re-read of ${r.total} records + tree), ${r.shown} rows shown`, unit: 'ms', paddock: p.refreshShown, baseline: f.refreshShown, goal: atMost(50, 'ms'), note: `${phases('refreshShown')}; the baseline's refresh re-reads nothing` });
  row({ figure: `Agents view, same store: full Refresh with all ${r.total} rows shown`, unit: 'ms', paddock: p.refreshAll, baseline: f.refreshAll, goal: atMost(50, 'ms'), note: phases('refreshAll') });
  return r;
});

dropSnapshot();
scratch.release();
const table = render();
console.log(`\n${table}\n`);
if (errors.length) console.log(`Figures that could not be measured:\n${errors.map((e) => `  - ${e}`).join('\n')}\n`);
const totalS = (Date.now() - started) / 1000;
console.log(`Total ${totalS.toFixed(0)} s; load average before ${machine.loadBefore.map((l) => l.toFixed(1)).join(' ')}, after ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${machine.cpus} CPUs; files on ${machine.filesystem}.`);
mkdirSync(join(root, 'bench-results'), { recursive: true });
writeFileSync(
  join(root, 'bench-results', 'latest.json'),
  JSON.stringify({ at: new Date().toISOString(), seconds: totalS, machine: { ...machine, loadAfter: loadavg() }, rows, errors, raw }, null, 2),
);
console.log('Wrote bench-results/latest.json');
const missed = rows.filter((r) => r.checked && !r.pass);
if (check && missed.length) console.log(`--check: ${missed.length} row(s) miss their goal: ${missed.map((r) => r.figure).join('; ')}`);
process.exitCode = errors.length || (check && missed.length) ? 1 : 0;
