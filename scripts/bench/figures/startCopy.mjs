// Start with worktree files (issue 13): `paddock start` in a 5,000-file repository whose
// `.paddock.json` copies a 10 MB ignored tree (200 files) and a `.env` into the new worktree,
// until the agent runs (it checks the files are there and stamps the time), vs `git worktree
// add` + `cp -r` of the same files + a direct PTY spawn of the same program. Interleaved.
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { killPty, spawnBare } from '../lib/agents.mjs';
import { cli, cliOk, paddockEnv, tempDir } from '../lib/env.mjs';
import { bigRepo, git } from '../lib/repo.mjs';
import { timedInWindow } from '../lib/core.mjs';
import { stampOf, agentScript } from './startCleanup.mjs';

const execFileP = promisify(execFile);
const now = () => performance.timeOrigin + performance.now();
const FILES = 200;
const FILE_BYTES = 50 * 1024;

function withIgnoredTree() {
  const repo = bigRepo();
  writeFileSync(join(repo, '.gitignore'), '/.data/\n.env\n');
  writeFileSync(join(repo, '.paddock.json'), `${JSON.stringify({ copy: ['/.data/', '/.env'] })}\n`);
  git(repo, 'add', '.gitignore', '.paddock.json');
  git(repo, 'commit', '-q', '-m', 'worktree files');
  for (let i = 0; i < FILES; i++) {
    const dir = join(repo, '.data', `d${i % 10}`);
    if (i < 10) mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `blob${i}.bin`), Buffer.alloc(FILE_BYTES, i % 251));
  }
  writeFileSync(join(repo, '.env'), 'API_URL=http://localhost\n');
  return repo;
}

export async function startCopy({ repeats }) {
  const pe = paddockEnv('startcopy');
  const repo = withIgnoredTree();
  const stamps = tempDir('copy-stamps');
  const wtRoot = tempDir('copy-worktrees');
  const out = { paddock: [], window: [], raw: [], mb: (FILES * FILE_BYTES) / (1024 * 1024) };
  // Both sides need the files: the agent proves they arrived before it stamps.
  const check = `test -f .env && test -f .data/d9/blob199.bin && `;
  await execFileP('git', ['status', '--porcelain'], { cwd: repo });
  for (let i = 0; i < repeats; i++) {
    const ps = join(stamps, `p${i}`);
    const t0 = now();
    const r = await cliOk(pe.env, ['start', '--repo', repo, '--title', `copy ${i}`, '--', 'sh', '-c', check + agentScript(ps)]);
    const id = r.stdout.trim();
    out.paddock.push((await stampOf(ps)) - t0);

    // The same start as a window makes it (its coordinator already running).
    const ws = join(stamps, `w${i}`);
    const tw = now();
    const { result: windowJob } = await timedInWindow(pe, (c) => c.start({ repo, title: `copy window ${i}`, command: ['sh', '-c', check + agentScript(ws)] }));
    out.window.push((await stampOf(ws)) - tw);

    const rs = join(stamps, `r${i}`);
    const wt = join(wtRoot, `w${i}`);
    const t1 = now();
    await execFileP('git', ['worktree', 'add', '-q', '-b', `raw/${i}`, wt, 'HEAD'], { cwd: repo });
    await execFileP('cp', ['-r', join(repo, '.data'), join(repo, '.env'), wt]);
    const pty = spawnBare(check + agentScript(rs), wt);
    out.raw.push((await stampOf(rs)) - t1);

    killPty(pty);
    await execFileP('git', ['worktree', 'remove', '--force', wt], { cwd: repo });
    await cli(pe.env, ['stop', '--force', id]);
    await cli(pe.env, ['stop', '--force', windowJob.id]);
    // Frees the slot for the next round (not measured).
    const c = await cli(pe.env, ['cleanup', id, '--yes', '--delete-branch', '--json']);
    if (c.code !== 0) throw new Error(`paddock cleanup failed: ${c.stderr.trim()}`);
    await cliOk(pe.env, ['cleanup', windowJob.id, '--yes', '--delete-branch']);
    if (process.env.PADDOCK_BENCH_VERBOSE) console.log(`  start cli ${r.ms.toFixed(0)} ms; cleanup ${c.ms.toFixed(0)} ms: ${c.stderr.trim()} ${JSON.parse(c.stdout).cleanup?.phase}`);
    console.log(`  start with ${out.mb} MB copied #${i + 1}: ${out.paddock[i].toFixed(0)} (window ${out.window[i].toFixed(0)}) vs ${out.raw[i].toFixed(0)} ms`);
  }
  return out;
}
