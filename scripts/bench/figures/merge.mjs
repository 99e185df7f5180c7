// 10. Merge: `paddock merge ID` of an agent's branch (a realistic change set, committed) into
// `main`, checked out clean in the 5,000-file repository and moved since the agent started (a
// true merge), vs raw `git merge --no-edit` of the same branch in the same worktree. Interleaved;
// `main` is put back to its old commit (untimed) after each. Every timed step runs in a fresh
// process of its own (lib/timingHost.mjs), so the row starts from the same state after the other
// figures of a full run as with `--only merge`.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliOk, cliPath, paddockEnv } from '../lib/env.mjs';
import { applyChangeSet, bigRepo, git } from '../lib/repo.mjs';
import { startTimingHost } from '../lib/core.mjs';

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
  git(repo, 'status', '--porcelain');
  const host = await startTimingHost(env);
  const ok = (what, r) => {
    if (r.error !== undefined || (r.code !== undefined && r.code !== 0)) throw new Error(`${what} failed: ${(r.error ?? r.stderr).trim()}`);
    return r.ms;
  };
  const out = { paddock: [], window: [], raw: [], nodeStart: [] };
  for (let i = 0; i < repeats; i++) {
    out.paddock.push(ok('paddock merge', await host.exec(process.execPath, [cliPath, 'merge', job.id, '--message', 'bench merge'], repo)));
    git(repo, 'reset', '-q', '--hard', old);
    // The same merge as a window runs it: its coordinator already up, no process to start.
    out.window.push(ok("a window's merge", await host.window('merge', job.id, { message: 'bench merge' })));
    git(repo, 'reset', '-q', '--hard', old);
    // What any CLI written for Node pays before its first line runs.
    out.nodeStart.push(ok("node -e ''", await host.exec(process.execPath, ['-e', ''], repo)));
    out.raw.push(ok('git merge', await host.exec('git', [...ID, 'merge', '-q', '--no-edit', '-m', 'bench merge', job.branch], repo)));
    git(repo, 'reset', '-q', '--hard', old);
    console.log(`  merge #${i + 1}: paddock ${out.paddock[i].toFixed(0)} ms (window ${out.window[i].toFixed(0)} ms) vs git merge ${out.raw[i].toFixed(0)} ms; node -e '' ${out.nodeStart[i].toFixed(0)} ms`);
  }
  host.close();
  return out;
}
