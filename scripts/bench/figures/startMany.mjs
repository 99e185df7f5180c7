// Scale: ten agents started at once (capacity 10) in the 5,000-file
// repository, until every agent has stamped the time as its first act — as a
// window starts them (ten starts on its running coordinator, no CLI process:
// the convention of the single start's and the merge's rows), and by ten
// `paddock start` processes side by side — vs ten `git worktree add` + a
// direct PTY spawn of the same program, side by side. Each timed section starts
// from the same state (see startCleanup.mjs) and every round ends with every
// worktree removed.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { killPty, spawnBare } from '../lib/agents.mjs';
import { timedInWindow } from '../lib/core.mjs';
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

/** CPU time spent by the whole machine so far (all cores, every process), in ms: /proc/stat's busy ticks (USER_HZ 100). */
export function machineBusyMs() {
  const [, user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  return (user + nice + system + irq + softirq + steal) * 10;
}

export async function startMany({ repeats, agents = 10 }) {
  const pe = paddockEnv('many');
  // Capacity for all of them, as `paddock.maxConcurrent: 10` gives a window.
  writeFileSync(join(pe.home, 'policy.json'), `${JSON.stringify({ maxConcurrent: agents })}\n`);
  const repo = bigRepo();
  const out = { paddock: [], window: [], raw: [], agents, windowCpu: [], rawCpu: [] };
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

    // The same ten as a window starts them: its coordinator already running, no process per start.
    await sameStartingState(repo);
    const tw = now();
    const cw = machineBusyMs();
    const { result: windowJobs } = await timedInWindow(pe, (c) =>
      Promise.all(Array.from({ length: agents }, (_, i) => c.start({ repo, title: `many window ${r}.${i}`, command: ['sh', '-c', agentScript(join(stamps, `w${i}`))] }))),
    );
    const windowDone = Math.max(...(await Promise.all(windowJobs.map((_, i) => stampOf(join(stamps, `w${i}`), 120_000)))));
    out.window.push(windowDone - tw);
    out.windowCpu.push(machineBusyMs() - cw);
    await Promise.all(windowJobs.map((j) => cliOk(pe.env, ['stop', '--force', j.id])));
    await Promise.all(windowJobs.map((j) => cli(pe.env, ['cleanup', j.id, '--yes'])));

    await sameStartingState(repo);
    const t1 = now();
    const c1 = machineBusyMs();
    const ptys = await Promise.all(
      Array.from({ length: agents }, async (_, i) => {
        const wt = join(wtRoot, `w${i}`);
        await worktreeAddRacing(repo, ['-b', `many/${r}/${i}`, wt, 'HEAD']);
        return spawnBare(agentScript(join(stamps, `r${i}`)), wt);
      }),
    );
    const rawDone = Math.max(...(await Promise.all(ptys.map((_, i) => stampOf(join(stamps, `r${i}`), 120_000)))));
    out.raw.push(rawDone - t1);
    out.rawCpu.push(machineBusyMs() - c1);
    for (const pty of ptys) killPty(pty);
    for (let i = 0; i < agents; i++) {
      await execFileP('git', ['worktree', 'remove', '--force', join(wtRoot, `w${i}`)], { cwd: repo });
      await execFileP('git', ['branch', '-D', `many/${r}/${i}`], { cwd: repo });
    }
    console.log(`  ${agents} at once #${r + 1}: window ${out.window[r].toFixed(0)} ms (CPU ${out.windowCpu[r]} ms), paddock start processes ${out.paddock[r].toFixed(0)} ms, raw ${out.raw[r].toFixed(0)} ms (CPU ${out.rawCpu[r]} ms)`);
  }
  return out;
}
