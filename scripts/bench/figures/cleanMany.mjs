// Scale: twenty ended agents cleaned up at once in the 5,000-file repository.
// Twenty agents started with the CLI (`sh -c 'echo x'`, capacity 20) run to
// `completed`; each worktree then gets the realistic change set
// (lib/repo.mjs applyChangeSet); then twenty `paddock cleanup ID --yes`
// processes side by side (the CLI has no `cleanup --all`), timed until the
// last has exited with its cleanup complete (evidence saved, worktree and
// branch gone). The baseline, in the same round: twenty raw worktrees with
// the same change sets, each captured the way Paddock captures with git's and
// tar's own commands (startCleanup.mjs rawCapture) then `git worktree remove --force` +
// `git branch -D`, all twenty side by side. Each timed section starts from the
// same state (startCleanup.mjs sameStartingState). Worktrees left by a failed
// round live in the figure's temp dirs (the agents' in <repo>.worktrees, beside
// the repository), removed with them; the agents have ended, so no worker is left.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadCore } from '../lib/core.mjs';
import { cli, cliOk, paddockEnv, sleep, tempDir } from '../lib/env.mjs';
import { applyChangeSet, bigRepo } from '../lib/repo.mjs';
import { rawCapture, sameStartingState } from './startCleanup.mjs';
import { machineBusyMs, worktreeAddRacing } from './startMany.mjs';

const execFileP = promisify(execFile);

/** Side-by-side ref updates can meet on packed-refs.lock or a ref's lock: run again, as a person would; counted. */
async function gitRacing(repo, args, out) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await execFileP('git', args, { cwd: repo });
    } catch (err) {
      // Lock contention, or (`branch -D` looking at every worktree) another side's `worktree remove` deleting one's admin folder under it.
      if (attempt >= 5 || !/\.lock'?:? File exists|Unable to create .*\.lock|cannot lock ref|Invalid path '[^']*\/worktrees\//i.test(String(err.stderr))) throw err;
      out.rawRetries++;
      await sleep(20);
    }
  }
}

async function untilAllEnded(store, ids, timeoutMs = 180_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const jobs = await Promise.all(ids.map((id) => store.read(id)));
    const states = jobs.map((j) => j.lifecycle.state);
    if (states.every((s) => s === 'completed')) return jobs;
    if (states.some((s) => s === 'failed' || s === 'stopped')) throw new Error(`an agent did not complete: ${states.join(', ')}`);
    if (Date.now() > deadline) throw new Error(`agents did not all complete: ${states.join(', ')}`);
    await sleep(200);
  }
}

const spread = (xs) => {
  const v = xs.filter(Number.isFinite).sort((a, b) => a - b);
  return v.length ? `${v[Math.floor(v.length / 2)].toFixed(0)} [${v[0].toFixed(0)}–${v.at(-1).toFixed(0)}]` : '—';
};

/** When each agent's cleanup was requested, captured and complete (its timeline), in ms after `wall0`. */
async function breakdown(home, ids, wall0, results) {
  const at = { requested: [], captured: [], complete: [] };
  for (const id of ids) {
    let lines = [];
    try {
      lines = readFileSync(join(home, 'jobs', id, 'timeline.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    } catch {
      // no timeline: left out
    }
    for (const key of Object.keys(at)) {
      const e = lines.findLast((x) => x.type === `cleanup-${key}`);
      at[key].push(e ? Date.parse(e.at) - wall0 : NaN);
    }
  }
  return { requested: spread(at.requested), captured: spread(at.captured), complete: spread(at.complete), exit: spread(results.map((c) => c.ms)), raw: at };
}

export async function cleanMany({ repeats, agents = 20 }) {
  const pe = paddockEnv('cleanmany');
  writeFileSync(join(pe.home, 'policy.json'), `${JSON.stringify({ maxConcurrent: agents })}\n`);
  const repo = bigRepo();
  const base = (await execFileP('git', ['rev-parse', 'HEAD'], { cwd: repo })).stdout.trim();
  const { JobStore } = await loadCore();
  const store = new JobStore({ home: pe.home });
  const out = { agents, paddock: [], raw: [], rawRetries: 0, paddockFailures: [], breakdown: [], cliFloor: [], paddockCpu: [], rawCpu: [] };
  for (let r = 0; r < repeats; r++) {
    // --- Paddock: 20 agents that end at once, their work left in their worktrees
    await sameStartingState(repo);
    const started = await Promise.all(
      Array.from({ length: agents }, (_, i) => cliOk(pe.env, ['start', '--repo', repo, '--title', `clean ${r}.${i}`, '--', 'sh', '-c', 'echo x'])),
    );
    const ids = started.map((s) => s.stdout.trim());
    const jobs = await untilAllEnded(store, ids);
    jobs.forEach((job, i) => applyChangeSet(job.worktree, r * agents + i));

    await sameStartingState(repo);
    const wall0 = Date.now();
    const t0 = performance.now();
    const cpu0 = machineBusyMs();
    const results = await Promise.all(ids.map((id) => cli(pe.env, ['cleanup', id, '--yes', '--json'])));
    out.paddock.push(performance.now() - t0);
    // The whole machine's CPU during each side: on 2 cores, what one side needs more of, it waits for.
    out.paddockCpu.push(machineBusyMs() - cpu0);
    out.breakdown.push(await breakdown(pe.home, ids, wall0, results));
    results.forEach((c, i) => {
      let phase = null;
      try {
        phase = JSON.parse(c.stdout).cleanup?.phase ?? null;
      } catch {
        // no JSON: the failure is in stderr
      }
      if (c.code !== 0 || phase !== 'complete' || existsSync(jobs[i].worktree)) {
        out.paddockFailures.push(`${ids[i]}: exit ${c.code}, phase ${phase}: ${c.stderr.trim()}`);
      }
    });
    if (out.paddockFailures.length) throw new Error(`paddock cleanup failed for ${out.paddockFailures.length} agent(s): ${out.paddockFailures.slice(0, 3).join(' | ')}`);

    // --- raw git: the same worktrees and change sets, captured and removed side by side
    const wtRoot = tempDir('cleanmany-raw');
    const patches = tempDir('cleanmany-patches');
    const wts = Array.from({ length: agents }, (_, i) => join(wtRoot, `w${i}`));
    for (let i = 0; i < agents; i++) {
      await worktreeAddRacing(repo, ['-b', `raw/${r}/${i}`, wts[i], 'HEAD']);
      applyChangeSet(wts[i], r * agents + i);
    }
    await sameStartingState(repo);
    const t1 = performance.now();
    const cpu1 = machineBusyMs();
    await Promise.all(
      wts.map(async (wt, i) => {
        await rawCapture(repo, wt, `${r}-${i}`, join(patches, `raw${i}.patch`), base);
        await gitRacing(repo, ['worktree', 'remove', '--force', wt], out);
        await gitRacing(repo, ['branch', '-D', `raw/${r}/${i}`], out);
      }),
    );
    out.raw.push(performance.now() - t1);
    out.rawCpu.push(machineBusyMs() - cpu1);
    // What twenty CLI processes side by side cost with no git at all: `paddock show ID --json`.
    const t2 = performance.now();
    await Promise.all(ids.map((id) => cliOk(pe.env, ['show', id, '--json'])));
    out.cliFloor.push(performance.now() - t2);
    const b = out.breakdown[r];
    console.log(`  ${agents} cleanups at once #${r + 1}: paddock ${out.paddock[r].toFixed(0)} ms (CPU ${out.paddockCpu[r]} ms), raw git ${out.raw[r].toFixed(0)} ms (CPU ${out.rawCpu[r]} ms); 20 \`paddock show\` side by side ${out.cliFloor[r].toFixed(0)} ms`);
    console.log(`    paddock, ms after the start (median [min–max]): requested ${b.requested}, captured ${b.captured}, complete ${b.complete}, process exit ${b.exit}`);
  }
  return out;
}
