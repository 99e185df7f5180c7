// Where the work stands, for 50 agents: the core's StandingCache (as the window
// runs it: git children through runGit, a few agents at a time) computing every
// agent's ahead/behind, diff size and uncommitted state, cold and with nothing
// changed, while a timer measures how late the process's event loop runs (the
// extension host must not be blocked). Baseline: raw `git rev-list --left-right
// --count` for the same agents, the same number at a time.
import * as esbuild from 'esbuild';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { root, tempDir } from '../lib/env.mjs';
import { bigRepo, git } from '../lib/repo.mjs';

async function loadStandingCache() {
  const dir = tempDir('standing-core');
  const entry = join(dir, 'entry.ts');
  writeFileSync(entry, `export { StandingCache, STANDING_CONCURRENCY } from ${JSON.stringify(join(root, 'src/core/git/standingCache.ts'))};\n`);
  const outfile = join(dir, 'standing.cjs');
  await esbuild.build({ entryPoints: [entry], outfile, bundle: true, format: 'cjs', platform: 'node', target: 'node20', minify: true, logLevel: 'warning', absWorkingDir: root });
  return createRequire(import.meta.url)(outfile);
}

/** `agents` worktrees off main, two commits each and an uncommitted file; then main moves on by one. */
function seedAgents(repo, agents) {
  const baseSha = git(repo, 'rev-parse', 'HEAD').trim();
  const jobs = [];
  for (let i = 0; i < agents; i++) {
    const id = `st${String(i).padStart(4, '0')}ab`;
    const wt = join(repo, '..', 'wt', id);
    git(repo, 'worktree', 'add', '-q', '-b', `paddock/${id}`, wt, 'main');
    writeFileSync(join(wt, 'src', 'mod000', `agent${i}.ts`), `export const agent = ${i};\n`);
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '-m', 'one');
    writeFileSync(join(wt, 'src', 'mod001', `agent${i}.ts`), `export const again = ${i};\n`);
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '-m', 'two');
    writeFileSync(join(wt, 'notes.txt'), 'uncommitted\n');
    jobs.push({ id, repo, worktree: wt, base: 'main', baseSha, cleanup: null, landing: null, lifecycle: { state: 'running', generation: 1, lastActivityAt: null, endedAt: null } });
  }
  writeFileSync(join(repo, 'CHANGES.md'), 'moved on\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'main moves on');
  return jobs;
}

/** Runs `fn` while a 5 ms timer measures the event loop's worst lateness. */
async function timedWithLag(fn) {
  let worst = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last - 5);
    last = now;
  }, 5);
  const t0 = performance.now();
  const result = await fn();
  const ms = performance.now() - t0;
  clearInterval(timer);
  return { ms, lagMs: Math.max(0, worst), result };
}

function rawCounts(jobs, concurrency) {
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < jobs.length; i = next++) {
      await new Promise((resolve, reject) => execFile('git', ['rev-list', '--left-right', '--count', 'main...HEAD'], { cwd: jobs[i].worktree }, (err) => (err ? reject(err) : resolve())));
    }
  };
  return Promise.all(Array.from({ length: concurrency }, lane));
}

export async function standing({ agents = 50, files = 500, repeats = 5 }) {
  const { StandingCache, STANDING_CONCURRENCY } = await loadStandingCache();
  const repo = bigRepo(files);
  const jobs = seedAgents(repo, agents);
  const out = { agents, files, cold: [], coldLag: [], warm: [], warmLag: [], raw: [], rawLag: [] };
  for (let r = 0; r < repeats; r++) {
    const cache = new StandingCache();
    const cold = await timedWithLag(() => cache.refresh(jobs));
    const wrong = jobs.filter((j) => {
      const s = cache.get(j.id);
      return !s || s.ahead !== 2 || s.behind !== 1 || s.files !== 2 || s.uncommittedFiles !== 1;
    });
    if (wrong.length) throw new Error(`${wrong.length} of ${agents} standings are wrong (e.g. ${JSON.stringify(cache.entry(wrong[0].id))})`);
    const warm = await timedWithLag(() => cache.refresh(jobs));
    if (warm.result.length !== 0) throw new Error('a refresh with nothing changed reported changes');
    const raw = await timedWithLag(() => rawCounts(jobs, STANDING_CONCURRENCY));
    out.cold.push(cold.ms);
    out.coldLag.push(cold.lagMs);
    out.warm.push(warm.ms);
    out.warmLag.push(warm.lagMs);
    out.raw.push(raw.ms);
    out.rawLag.push(raw.lagMs);
  }
  return out;
}
