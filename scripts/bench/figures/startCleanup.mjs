// 4. Start: `paddock start` until the agent runs (it stamps the time as its
// first act), vs `git worktree add` + a direct PTY spawn of the same program.
// 5. Cleanup: with a realistic change set in the worktree, `paddock cleanup`
// (evidence capture, worktree and branch removal) vs `git worktree remove
// --force` + `git branch -D`. Both on a generated 5,000-file repository.
import { execFile } from 'node:child_process';
import { closeSync, copyFileSync, existsSync, fsyncSync, openSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadavg } from 'node:os';
import { promisify } from 'node:util';
import { killPty, spawnBare, sleep } from '../lib/agents.mjs';
import { cli, cliOk, paddockEnv, tempDir } from '../lib/env.mjs';
import { applyChangeSet, bigRepo } from '../lib/repo.mjs';
import { timedInWindow } from '../lib/core.mjs';

const execFileP = promisify(execFile);
const now = () => performance.timeOrigin + performance.now();

/** The agent: stamps the time it started (ns) as its first act, then idles. */
export function agentScript(stamp) {
  return `date +%s%N > ${stamp}.tmp && mv ${stamp}.tmp ${stamp}; echo started; exec sleep 600`;
}

export async function stampOf(stamp, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(stamp)) {
    if (Date.now() > deadline) throw new Error('the agent did not start');
    await sleep(2);
  }
  return Number(readFileSync(stamp, 'utf8').trim()) / 1e6;
}

/** git in the worktree `wt`, with extra environment. */
const gitIn = (wt) => (args, env = {}) => execFileP('git', args, { cwd: wt, env: { ...process.env, ...env }, maxBuffer: 1 << 28 });

/** Evidence with the fewest git commands: temporary index, add -A, tree, commit, ref, binary patch. */
export async function rawMinimalCapture(repo, wt, i, patchFile) {
  const git = gitIn(wt);
  const index = join(tempDir('raw-index'), 'index');
  const { stdout: realIndex } = await git(['rev-parse', '--path-format=absolute', '--git-path', 'index']);
  copyFileSync(realIndex.trim(), index);
  const env = { GIT_INDEX_FILE: index };
  await git(['add', '-A', '--', '.'], env);
  const tree = (await git(['write-tree'], env)).stdout.trim();
  const head = (await git(['rev-parse', 'HEAD'])).stdout.trim();
  const commit = (await git(['-c', 'user.name=b', '-c', 'user.email=b@b', 'commit-tree', tree, '-p', head, '-m', 'snapshot'])).stdout.trim();
  await execFileP('git', ['update-ref', `refs/raw/minimal/${i}`, commit], { cwd: repo });
  await git(['diff-tree', '-r', '-p', '--binary', '-M', '--no-color', `--output=${patchFile}`, head, commit]);
}

/**
 * The same evidence as Paddock's cleanup keeps, made with git's and tar's own commands, steps
 * that do not depend on each other side by side (what issue 17's row asks for: raw git doing the
 * same capture): the worktree staged in a temporary index that keeps git's racy-entry rule (the
 * copy has the index's own time, as Paddock's does), the snapshot commit with the commits only
 * the reflogs know as parents, its ref, the binary patch against the base, proven by applying it
 * to the base in a scratch index, the ignored files (which git does not commit) in a tar archive,
 * and the evidence synced to disk. Not done here, and done by Paddock: the walk of every entry
 * for what git cannot see at all (nested repositories, unreadable folders, empty folders), the
 * inventory, and the look for processes holding the worktree.
 */
export async function rawCapture(repo, wt, i, patchFile, base) {
  const git = gitIn(wt);
  const scratch = tempDir('raw-index');
  const index = join(scratch, 'index');
  const [{ stdout: realIndex }, { stdout: headOut }] = await Promise.all([git(['rev-parse', '--path-format=absolute', '--git-path', 'index']), git(['rev-parse', 'HEAD'])]);
  const head = headOut.trim();
  copyFileSync(realIndex.trim(), index);
  const original = statSync(realIndex.trim());
  utimesSync(index, original.atime, new Date(original.mtimeMs - 1));
  const env = { GIT_INDEX_FILE: index };
  const kept = git(['rev-list', '--reflog', '--max-count=100', '--not', '--all']);
  await git(['add', '-A', '--', '.'], env);
  const [tree, ignored, keptOut] = await Promise.all([
    git(['write-tree'], env).then((r) => r.stdout.trim()),
    git(['ls-files', '-z', '--others', '--ignored', '--exclude-standard']).then((r) => r.stdout),
    kept.then((r) => r.stdout.split('\n').filter(Boolean)),
  ]);
  const parents = [head, ...keptOut].flatMap((sha) => ['-p', sha]);
  const archive = `${patchFile}.tar`;
  const verifyIndex = { GIT_INDEX_FILE: join(scratch, 'verify-index') };
  const tar = (list) =>
    new Promise((resolve, reject) => {
      const child = execFile('tar', ['--create', '--null', '--no-recursion', '--files-from=-', '--file', archive], { cwd: wt }, (err) => (err ? reject(err) : resolve()));
      child.stdin.end(list);
    });
  await Promise.all([
    git(['-c', 'user.name=b', '-c', 'user.email=b@b', 'commit-tree', tree, ...parents, '-m', 'snapshot']).then(async (r) => {
      await execFileP('git', ['update-ref', `refs/raw/snapshots/${i}`, r.stdout.trim()], { cwd: repo });
    }),
    (async () => {
      await git(['diff-tree', '-r', '-p', '--binary', '-M', '--no-color', `--output=${patchFile}`, base, tree]);
      await git(['read-tree', base], verifyIndex);
      await git(['apply', '--cached', '--binary', patchFile], verifyIndex);
      const proved = (await git(['write-tree'], verifyIndex)).stdout.trim();
      if (proved !== tree) throw new Error('the raw patch does not reproduce the tree');
    })(),
    ignored.length > 0 ? tar(ignored) : undefined,
  ]);
  for (const file of [patchFile, ...(ignored.length > 0 ? [archive] : [])]) {
    const fd = openSync(file, 'r');
    fsyncSync(fd);
    closeSync(fd);
  }
  const dir = openSync(dirname(patchFile), 'r');
  fsyncSync(dir);
  closeSync(dir);
}

/**
 * Each run starts from the same state. What grew run after run (issue 17):
 * every run writes two 5,000-file worktrees, a change set with 3 MB of
 * binaries, and the evidence, then deletes the worktrees; the kernel writes
 * those dirty pages back (ext4's 5 s writeback, 30 s expiry) while the next
 * run checks out its own 5,000 files — so run N's start paid for the
 * write-back of runs N−1, N−2… (and the repository's loose objects grew by
 * ~130 a run towards `gc --auto`'s threshold). Flushing with `sync` before
 * each run (outside the timed section), dropping the raw side's snapshot
 * refs, and reading the repository's pack and index back into the page cache
 * makes every run start from a repository and a disk in the same state.
 */
export async function sameStartingState(repo) {
  for (const ref of (await execFileP('git', ['for-each-ref', '--format=%(refname)', 'refs/raw/'], { cwd: repo })).stdout.split('\n').filter(Boolean)) {
    await execFileP('git', ['update-ref', '-d', ref], { cwd: repo });
  }
  await execFileP('git', ['worktree', 'prune'], { cwd: repo });
  await execFileP('sync');
  // Warm alike for both sides: the index and every tracked file's stat (status), the objects (cat the pack).
  await execFileP('git', ['status', '--porcelain'], { cwd: repo });
  await execFileP('sh', ['-c', 'cat .git/objects/pack/*.pack > /dev/null'], { cwd: repo });
}

/** What may accumulate in the repository between runs (for the growth investigation). */
async function repoState(repo) {
  const counts = Object.fromEntries(
    (await execFileP('git', ['count-objects', '-v'], { cwd: repo })).stdout
      .trim()
      .split('\n')
      .map((l) => l.split(': '))
      .map(([k, v]) => [k, Number(v)]),
  );
  const worktrees = (await execFileP('git', ['worktree', 'list', '--porcelain'], { cwd: repo })).stdout.split('\n').filter((l) => l.startsWith('worktree ')).length;
  const refs = (await execFileP('git', ['for-each-ref'], { cwd: repo })).stdout.split('\n').filter(Boolean).length;
  const gcRunning = existsSync(join(repo, '.git', 'gc.pid'));
  const meminfo = readFileSync('/proc/meminfo', 'utf8');
  const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(meminfo)?.[1] ?? NaN);
  return {
    dirtyMb: kb('Dirty') / 1024,
    writebackMb: kb('Writeback') / 1024, loose: counts.count, packs: counts.packs, inPack: counts['in-pack'], worktrees, refs, gcRunning, load1: loadavg()[0], probe: await probe(repo) };
}

/**
 * The same `git worktree add` as the raw start, under /usr/bin/time, outside
 * the timed sections: its CPU time (user + sys) and major page faults (reads
 * the page cache could not serve) tell a repository that costs more to check
 * out from a machine that is only busier or colder.
 */
async function probe(repo) {
  if (!existsSync('/usr/bin/time')) return null;
  const wt = join(tempDir('probe'), 'wt');
  const { stderr } = await execFileP('/usr/bin/time', ['-f', 'TIME %e %U %S %F', 'git', 'worktree', 'add', '-q', '--detach', wt, 'HEAD'], { cwd: repo });
  await execFileP('git', ['worktree', 'remove', '--force', wt], { cwd: repo });
  const [wall, user, sys, majorFaults] = /TIME (\S+) (\S+) (\S+) (\S+)/.exec(stderr).slice(1).map(Number);
  return { wallMs: wall * 1000, cpuMs: (user + sys) * 1000, majorFaults };
}

/** `paddock stop --force` right after start; a failure is recorded (it is a finding) and retried once. */
async function stopWithRetry(pe, id, out) {
  const first = await cli(pe.env, ['stop', '--force', id]);
  if (first.code === 0) return;
  out.stopFailures.push(first.stderr.trim());
  console.log(`  (stop failed once: ${first.stderr.trim()})`);
  await sleep(1000);
  await cliOk(pe.env, ['stop', '--force', id]);
}

export async function startCleanup({ repeats }) {
  const pe = paddockEnv('start');
  const repo = bigRepo();
  // Both sides' worktrees are made from this commit: the base their patches are taken against.
  const base = (await execFileP('git', ['rev-parse', 'HEAD'], { cwd: repo })).stdout.trim();
  const stamps = tempDir('stamps');
  const wtRoot = tempDir('raw-worktrees');
  const out = { paddockStart: [], windowStart: [], rawStart: [], paddockCleanup: [], rawCleanup: [], rawCapture: [], rawMinimalCapture: [], patchBytes: [], stopFailures: [] };
  out.repoState = [];
  for (let i = 0; i < repeats; i++) {
    out.repoState.push(await repoState(repo));
    await sameStartingState(repo);
    // --- Paddock start
    const ps = join(stamps, `p${i}`);
    const t0 = now();
    const r = await cliOk(pe.env, ['start', '--repo', repo, '--title', `bench ${i}`, '--', 'sh', '-c', agentScript(ps)]);
    const id = r.stdout.trim();
    out.paddockStart.push((await stampOf(ps)) - t0);

    // --- the same start as a window makes it: its coordinator already running (no CLI process),
    // from the same state as the raw start (the CLI start's 5,000 files written back first)
    await sameStartingState(repo);
    const wsStamp = join(stamps, `w${i}`);
    const tw = now();
    const { result: windowJob } = await timedInWindow(pe, (c) => c.start({ repo, title: `bench window ${i}`, command: ['sh', '-c', agentScript(wsStamp)] }));
    out.windowStart.push((await stampOf(wsStamp)) - tw);
    await stopWithRetry(pe, windowJob.id, out);
    await cliOk(pe.env, ['cleanup', windowJob.id, '--yes']);
    await sameStartingState(repo);

    // --- raw start: git worktree add + spawn
    const rs = join(stamps, `r${i}`);
    const wt = join(wtRoot, `w${i}`);
    const t1 = now();
    await execFileP('git', ['worktree', 'add', '-q', '-b', `raw/${i}`, wt, 'HEAD'], { cwd: repo });
    const pty = spawnBare(agentScript(rs), wt);
    out.rawStart.push((await stampOf(rs)) - t1);

    // --- the agents stop; the work stays in their worktrees
    await stopWithRetry(pe, id, out);
    killPty(pty);
    const job = JSON.parse((await cliOk(pe.env, ['show', id, '--json'])).stdout);
    applyChangeSet(job.worktree, i);
    applyChangeSet(wt, i);
    await sleep(200);

    // --- Paddock cleanup (evidence first)
    const c = await cli(pe.env, ['cleanup', id, '--yes', '--json']);
    if (c.code !== 0) throw new Error(`paddock cleanup failed: ${c.stderr.trim()}`);
    out.paddockCleanup.push(c.ms);
    const cleaned = JSON.parse(c.stdout);
    if (cleaned.cleanup?.phase !== 'complete' || existsSync(job.worktree)) throw new Error('paddock cleanup left the worktree');
    if (cleaned.evidence?.patch && existsSync(cleaned.evidence.patch)) out.patchBytes.push(readFileSync(cleaned.evidence.patch).length);

    // --- the floor for any cleanup that keeps the work: the same evidence with raw git
    const t3 = performance.now();
    await rawCapture(repo, wt, i, join(stamps, `raw${i}.patch`), base);
    out.rawCapture.push(performance.now() - t3);
    // --- and with the fewest git commands (no proof, no ignored files, no reflog-only commits), for reference
    const t4 = performance.now();
    await rawMinimalCapture(repo, wt, i, join(stamps, `raw-minimal${i}.patch`));
    out.rawMinimalCapture.push(performance.now() - t4);

    // --- raw cleanup
    const t2 = performance.now();
    await execFileP('git', ['worktree', 'remove', '--force', wt], { cwd: repo });
    await execFileP('git', ['branch', '-D', `raw/${i}`], { cwd: repo });
    out.rawCleanup.push(performance.now() - t2);
    console.log(`  repo before #${i + 1}: ${JSON.stringify(out.repoState[i])}`);
    console.log(`  start/cleanup #${i + 1}: start ${out.paddockStart[i].toFixed(0)} (window ${out.windowStart[i].toFixed(0)}) vs ${out.rawStart[i].toFixed(0)} ms; cleanup ${out.paddockCleanup[i].toFixed(0)} vs ${out.rawCleanup[i].toFixed(0)} ms (+ raw evidence ${out.rawCapture[i].toFixed(0)} ms)`);
  }
  return out;
}
