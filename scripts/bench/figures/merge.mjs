// 10. Merge: `paddock merge ID` of an agent's branch (a realistic change set, committed) into
// `main`, checked out clean in the 5,000-file repository and moved since the agent started (a
// true merge), vs raw `git merge --no-edit` of the same branch in the same worktree. Interleaved;
// `main` is put back to its old commit (untimed) after each.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cli, cliOk, paddockEnv } from '../lib/env.mjs';
import { applyChangeSet, bigRepo, git } from '../lib/repo.mjs';
import { timedInWindow } from '../lib/core.mjs';

const execFileP = promisify(execFile);
const ID = ['-c', 'user.name=Bench', '-c', 'user.email=bench@example.invalid'];

export async function merge({ repeats }) {
  const pe = paddockEnv('merge');
  const env = { ...pe.env, GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'bench@example.invalid', GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'bench@example.invalid' };
  const repo = bigRepo();
  const started = await cliOk(env, ['start', '--json', '--repo', repo, '--title', 'bench merge', '--', 'true']);
  const job = JSON.parse(started.stdout);
  for (let i = 0; i < 100 && JSON.parse((await cliOk(env, ['show', job.id, '--json'])).stdout).lifecycle.state !== 'completed'; i++) await new Promise((r) => setTimeout(r, 100));
  applyChangeSet(job.worktree, 1);
  git(job.worktree, 'add', '-A');
  git(job.worktree, 'commit', '-q', '-m', 'agent work');
  // main moves on other files: the landing is a true merge.
  writeFileSync(join(repo, 'MAIN.md'), 'main moved\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'main moves');
  const old = git(repo, 'rev-parse', 'main').trim();
  await execFileP('git', ['status', '--porcelain'], { cwd: repo });
  const out = { paddock: [], window: [], raw: [], nodeStart: [] };
  for (let i = 0; i < repeats; i++) {
    const p = await cli(env, ['merge', job.id, '--message', 'bench merge'], { cwd: repo });
    if (p.code !== 0) throw new Error(`paddock merge failed: ${p.stderr.trim()}`);
    out.paddock.push(p.ms);
    git(repo, 'reset', '-q', '--hard', old);
    // The same merge as a window runs it: its coordinator already up, no process to start.
    out.window.push((await timedInWindow({ ...pe, env }, (c) => c.merge(job.id, { message: 'bench merge' }))).ms);
    git(repo, 'reset', '-q', '--hard', old);
    // What any CLI written for Node pays before its first line runs.
    const tn = performance.now();
    await execFileP(process.execPath, ['-e', '']);
    out.nodeStart.push(performance.now() - tn);
    const t0 = performance.now();
    await execFileP('git', [...ID, 'merge', '-q', '--no-edit', '-m', 'bench merge', job.branch], { cwd: repo });
    out.raw.push(performance.now() - t0);
    git(repo, 'reset', '-q', '--hard', old);
    console.log(`  merge #${i + 1}: paddock ${p.ms.toFixed(0)} ms (window ${out.window[i].toFixed(0)} ms) vs git merge ${out.raw[i].toFixed(0)} ms; node -e '' ${out.nodeStart[i].toFixed(0)} ms`);
  }
  return out;
}
