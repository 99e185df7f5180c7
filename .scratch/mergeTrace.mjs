import { execFile } from 'node:child_process';
import { writeFileSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cli, cliOk, paddockEnv } from '../scripts/bench/lib/env.mjs';
import { applyChangeSet, bigRepo, git } from '../scripts/bench/lib/repo.mjs';
import { timedInWindow } from '../scripts/bench/lib/core.mjs';
const execFileP = promisify(execFile);
import cp from 'node:child_process';
const spawns = [];
const origSpawn = cp.spawn;
cp.spawn = function (...a) { const t = performance.now(); const r = origSpawn.apply(this, a); spawns.push([t, performance.now(), String(a[1]?.slice(0, 3).join(' '))]); return r; };

const ID = ['-c', 'user.name=Bench', '-c', 'user.email=bench@example.invalid'];
const pe = paddockEnv('mergetrace');
const env = { ...pe.env, GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'bench@example.invalid', GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'bench@example.invalid' };
const repo = bigRepo();
const job = JSON.parse((await cliOk(env, ['start', '--json', '--repo', repo, '--title', 'bench merge', '--', 'true'])).stdout);
for (let i = 0; i < 100 && JSON.parse((await cliOk(env, ['show', job.id, '--json'])).stdout).lifecycle.state !== 'completed'; i++) await new Promise((r) => setTimeout(r, 100));
applyChangeSet(job.worktree, 1);
git(job.worktree, 'add', '-A');
git(job.worktree, 'commit', '-q', '-m', 'agent work');
writeFileSync(join(repo, 'MAIN.md'), 'main moved\n');
git(repo, 'add', '-A');
git(repo, 'commit', '-q', '-m', 'main moves');
const old = git(repo, 'rev-parse', 'main').trim();
const trace = '/tmp/mtrace.json';
const N = Number(process.argv[2] ?? 6);
const mode = process.argv[3] ?? 'trace';
for (let i = 0; i < N; i++) {
  if (existsSync(trace)) rmSync(trace);
  if (mode === 'trace') process.env.GIT_TRACE2_EVENT = trace;
  const wall0 = Date.now(); const perf0 = performance.now(); spawns.length = 0;
  const r = await timedInWindow({ ...pe, env: mode === 'trace' ? { ...env, GIT_TRACE2_EVENT: trace } : env }, (c) => c.merge(job.id, { message: 'bench merge' }));
  delete process.env.GIT_TRACE2_EVENT;
  git(repo, 'reset', '-q', '--hard', old);
  const t0 = performance.now(); await execFileP('git', [...ID, 'merge', '-q', '--no-edit', '-m', 'bench merge', job.branch], { cwd: repo }); const raw = performance.now() - t0;
  git(repo, 'reset', '-q', '--hard', old);
  console.log(`merge ${i}: window ${r.ms.toFixed(1)} ms, raw ${raw.toFixed(1)} ms`);
  if (mode !== 'trace') continue;
  const procs = new Map();
  for (const line of readFileSync(trace, 'utf8').split('\n')) {
    if (!line) continue;
    const e = JSON.parse(line);
    const t = Date.parse(e.time) - wall0;
    const p = procs.get(e.sid) ?? {};
    if (e.event === 'start') { p.start = t; p.argv = e.argv.slice(1).join(' ').slice(0, 70); }
    if (e.event === 'exit') p.end = t;
    procs.set(e.sid, p);
  }
  for (const [a, b, n] of spawns) console.log(`   spawn ${(a - perf0).toFixed(1)} +${(b - a).toFixed(1)} ${n}`);
  for (const p of [...procs.values()].sort((a, b) => a.start - b.start)) console.log(`   ${String(p.start).padStart(4)} → ${String(p.end).padStart(4)}  ${p.argv}`);
}
process.exit(0);
