// Scale: ten agents started at once (capacity 10) in the 5,000-file
// repository — ten `paddock start` processes side by side, until every agent
// has stamped the time as its first act — vs ten `git worktree add` + a direct
// PTY spawn of the same program, side by side. Each round starts from the same
// state (see startCleanup.mjs) and ends with every worktree removed.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { killPty, spawnBare } from '../lib/agents.mjs';
import { cli, cliOk, paddockEnv, tempDir } from '../lib/env.mjs';
import { bigRepo } from '../lib/repo.mjs';
import { agentScript, sameStartingState, stampOf } from './startCleanup.mjs';

const execFileP = promisify(execFile);
const now = () => performance.timeOrigin + performance.now();

/**
 * `git worktree add` run side by side can fail reading a sibling's admin
 * folder that is still being written ("failed to read .git/worktrees/w5/
 * commondir", git 2.39): a person would run it again, so the baseline does.
 */
export async function worktreeAddRacing(repo, args) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await execFileP('git', ['worktree', 'add', '-q', ...args], { cwd: repo });
    } catch (err) {
      if (attempt >= 5 || !/failed to read .*worktrees/.test(String(err.stderr))) throw err;
    }
  }
}

export async function startMany({ repeats, agents = 10 }) {
  const pe = paddockEnv('many');
  // Capacity for all of them, as `paddock.maxConcurrent: 10` gives a window.
  writeFileSync(join(pe.home, 'policy.json'), `${JSON.stringify({ maxConcurrent: agents })}\n`);
  const repo = bigRepo();
  const out = { paddock: [], raw: [], agents };
  for (let r = 0; r < repeats; r++) {
    const stamps = tempDir('many-stamps');
    const wtRoot = tempDir('many-worktrees');

    await sameStartingState(repo);
    const t0 = now();
    const started = await Promise.all(
      Array.from({ length: agents }, (_, i) => cliOk(pe.env, ['start', '--repo', repo, '--title', `many ${r}.${i}`, '--', 'sh', '-c', agentScript(join(stamps, `p${i}`))])),
    );
    const paddockDone = Math.max(...(await Promise.all(started.map((_, i) => stampOf(join(stamps, `p${i}`), 120_000)))));
    out.paddock.push(paddockDone - t0);
    const ids = started.map((s) => s.stdout.trim());
    await Promise.all(ids.map((id) => cliOk(pe.env, ['stop', '--force', id])));
    await Promise.all(ids.map((id) => cli(pe.env, ['cleanup', id, '--yes'])));

    await sameStartingState(repo);
    const t1 = now();
    const ptys = await Promise.all(
      Array.from({ length: agents }, async (_, i) => {
        const wt = join(wtRoot, `w${i}`);
        await worktreeAddRacing(repo, ['-b', `many/${r}/${i}`, wt, 'HEAD']);
        return spawnBare(agentScript(join(stamps, `r${i}`)), wt);
      }),
    );
    const rawDone = Math.max(...(await Promise.all(ptys.map((_, i) => stampOf(join(stamps, `r${i}`), 120_000)))));
    out.raw.push(rawDone - t1);
    for (const pty of ptys) killPty(pty);
    for (let i = 0; i < agents; i++) {
      await execFileP('git', ['worktree', 'remove', '--force', join(wtRoot, `w${i}`)], { cwd: repo });
      await execFileP('git', ['branch', '-D', `many/${r}/${i}`], { cwd: repo });
    }
    console.log(`  ${agents} at once #${r + 1}: paddock ${out.paddock[r].toFixed(0)} ms, raw ${out.raw[r].toFixed(0)} ms`);
  }
  return out;
}
