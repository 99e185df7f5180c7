/**
 * A snapshot's objects are written (`add`, `write-tree`, `commit-tree`) before its ref, and until the
 * ref is there nothing reaches them. A `git gc` with gc.pruneExpire=now (the person's, or another
 * tool's) whose prune read the refs before the ref was written deletes them after it (measured: two
 * captures in forty returned a snapshot commit that was already gone, the worktree then removable on
 * its strength). prune's expiry cannot keep them: `now` means every unreachable object, whatever its
 * date. So once the ref is written the capture waits for a gc that is running (git holds `gc.pid`
 * in the common dir while one runs; a gc that starts later sees the ref), then proves every object
 * the snapshot adds to HEAD is there; if one is gone the ref goes back and the capture fails, and
 * nothing is removed. A bare `git prune` takes no such lock: only the proof covers it.
 */
import { promises as fs } from 'node:fs';
import { hostname } from 'node:os';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { failure } from '../common/errors';
import { processBackend } from '../proc/backend';
import { isGoneState } from '../proc/procStat';
import { GIT_BULK_TIMEOUT_MS, NO_HOOKS, READ_ONLY_GIT, runGit } from './runGit';

/** git itself takes a gc.pid older than this for one left by a crash (gc.c). */
const STALE_GC_PID_MS = 12 * 60 * 60 * 1000;
/** How long the capture waits for a running gc before it fails (to be tried again). */
export const GC_WAIT_MS = 10 * 60 * 1000;
const GC_POLL_MS = 200;

/**
 * Whether a gc runs in the repository whose common dir is `commonDir`: its `gc.pid` names a live git
 * here (a pid reused by another program after a crashed gc is no gc: waiting on it would fail every
 * capture for the 12 hours git keeps such a file), or any process on another host.
 */
async function gcRunning(commonDir: string): Promise<boolean> {
  const file = path.join(commonDir, 'gc.pid');
  const [text, st] = await Promise.all([fs.readFile(file, 'utf8').catch(() => null), fs.stat(file).catch(() => null)]);
  if (text === null || st === null || Date.now() - st.mtimeMs > STALE_GC_PID_MS) return false;
  const m = /^(\d+) (\S+)/.exec(text);
  if (!m || m[2] !== hostname()) return m !== null; // another host's gc cannot be looked at: it runs until its file goes
  const stat = await processBackend().processStatAsync(Number(m[1])).catch(() => undefined);
  return stat !== undefined && !isGoneState(stat.state) && /git/.test(stat.comm);
}

/** Objects `sha` reaches that `headSha` (held by the worktree's branch) does not and that are gone; the commit itself when rev-list cannot start. */
async function missingObjects(repo: string, sha: string, headSha: string | null): Promise<string[]> {
  // --missing=print names a gone object ("?<id>") instead of stopping at it.
  const listed = await runGit(['rev-list', '--objects', '--missing=print', sha, ...(headSha ? ['--not', headSha] : [])], { cwd: repo, env: READ_ONLY_GIT, allowFailure: true, timeoutMs: GIT_BULK_TIMEOUT_MS });
  if (listed.code !== 0) return [sha];
  return listed.stdout.split('\n').filter((l) => l.startsWith('?')).map((l) => l.slice(1).split(' ', 1)[0]);
}

/** The ref back to what it named before (its reflog's previous entry), or gone when it is new; only while it still names `sha`. */
async function undoRef(repo: string, ref: string, sha: string): Promise<void> {
  const before = await runGit(['rev-parse', '-q', '--verify', `${ref}@{1}`], { cwd: repo, allowFailure: true });
  const old = before.stdout.trim();
  await runGit(['update-ref', ...(before.code === 0 && old ? [ref, old, sha] : ['-d', ref, sha])], { cwd: repo, config: NO_HOOKS, allowFailure: true });
}

/** Writes `ref` at the snapshot `sha` and proves its objects outlast any gc running meanwhile; fails (nothing removed) when they do not. */
export async function writeSnapshotRef(opts: { repo: string; commonDir: string; ref: string; sha: string; headSha: string | null; gcWaitMs?: number }): Promise<void> {
  const { repo, ref, sha } = opts;
  // --create-reflog keeps earlier snapshots of the same job (a retried cleanup) reachable for a while; no hooks (NO_HOOKS).
  await runGit(['update-ref', '--create-reflog', '-m', 'paddock snapshot', ref, sha], { cwd: repo, config: NO_HOOKS });
  const deadline = Date.now() + (opts.gcWaitMs ?? GC_WAIT_MS);
  let waiting = await gcRunning(opts.commonDir);
  while (waiting && Date.now() < deadline) {
    await sleep(GC_POLL_MS);
    waiting = await gcRunning(opts.commonDir);
  }
  const missing = waiting ? [] : await missingObjects(repo, sha, opts.headSha);
  if (!waiting && missing.length === 0) return;
  await undoRef(repo, ref, sha);
  throw failure(
    waiting
      ? `a git gc has run in ${repo} for as long as the capture could wait, and it may delete the snapshot's objects; nothing was removed, and the next attempt captures again`
      : `${missing.length} object(s) of the snapshot were deleted in ${repo} while it was written (a git gc or prune ran at the same time); nothing was removed, and the next attempt captures again`,
  );
}
