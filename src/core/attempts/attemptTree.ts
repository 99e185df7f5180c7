/**
 * An attempt's work as one git tree, and what it changed against its base:
 * - a live worktree: its full state on disk (tracked, modified, untracked, not
 *   ignored) written as a tree through a temporary index — the worktree's own
 *   index is never touched;
 * - a cleaned attempt: its evidence snapshot (the full state cleanup saved).
 * Trees live in the repository's shared object store, so two attempts' trees
 * can be diffed from the main repository.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { patchHeaderName } from '../git/quotedName';
import { ALL_SUBMODULES, GIT_BULK_TIMEOUT_MS, NO_HOOKS_ENV, runGit } from '../git/runGit';
import { sparseAdd } from '../git/sparseAdd';
import { setIndexFlags, skippedAndAbsent } from '../git/flaggedFiles';
import type { JobRecord } from '../store/schema';
import { worktreeGitEnv } from '../git/worktreeGitEnv';

export interface AttemptTree {
  /** The tree's object id. */
  tree: string;
  /** Where it came from. */
  source: 'worktree' | 'snapshot';
  /** The commit the attempt's branch (or the snapshot's head) is at; null when unknown. */
  head: string | null;
}

export interface FileChange {
  path: string;
  /** Lines added and removed; null for a binary file. */
  added: number | null;
  removed: number | null;
  /** What line counts do not show: a mode change (`executable`, `not executable`) or a symbolic link (`symlink`, `now a symlink`, `no longer a symlink`); absent otherwise. */
  kind?: string;
}

/**
 * A worktree's full state on disk (tracked, modified, untracked, not ignored) written as a tree
 * through a temporary index — the worktree's own index is never touched — and the commit its HEAD is at.
 * Read through `repo`'s registration of the worktree (worktreeGitEnv): never a repository the agent made
 * there, nor one of a folder above it. `branch`: the agent's (worktreeGitEnv).
 */
export async function worktreeTree(repo: string, worktree: string, branch?: string | null): Promise<{ tree: string; head: string | null }> {
  const index = path.join(tmpdir(), `paddock-compare-${randomBytes(6).toString('hex')}.index`);
  // no post-index-change hook on a scratch index (bug 105)
  const linkEnv = await worktreeGitEnv(repo, worktree, branch);
  const env = { GIT_INDEX_FILE: index, ...NO_HOOKS_ENV, ...linkEnv };
  try {
    const head = (await runGit(['rev-parse', '--verify', '-q', 'HEAD'], { cwd: worktree, env, allowFailure: true })).stdout.trim() || null;
    if (head) await runGit(['read-tree', head], { cwd: worktree, env });
    // A sparse checkout's files left out of it are no deletions: flagged again in the scratch index (git fails on a path it does not hold).
    // Its own index, through the same registration as the rest (a worktree whose link was cut: bug 156).
    const leftOut = await skippedAndAbsent(worktree, linkEnv);
    if (leftOut.length > 0) {
      const held = new Set((await runGit(['ls-files', '-z'], { cwd: worktree, env, names: true })).stdout.split('\0'));
      await setIndexFlags(worktree, { skipWorktree: leftOut.filter((p) => held.has(p)) }, env);
    }
    // Through the person's clean filters: one slow but working (a quiet wait on a service) is let run to the bound (stallMs 0).
    // --sparse: in a sparse checkout git refuses, for the whole add, a file written outside its patterns (sparseAdd.ts).
    const sparse = await sparseAdd();
    await runGit(['add', '-A', ...sparse.flag, '--', '.'], { cwd: worktree, env: { ...env, ...sparse.env }, timeoutMs: GIT_BULK_TIMEOUT_MS, stallMs: 0 });
    const tree = (await runGit(['write-tree'], { cwd: worktree, env })).stdout.trim();
    return { tree, head };
  } finally {
    await fs.rm(index, { force: true });
  }
}

/** The attempt's tree, or the reason there is none (never started, cleaned without a snapshot). */
export async function attemptTree(job: JobRecord): Promise<AttemptTree | { unavailable: string }> {
  const cleaned = job.cleanup?.phase === 'complete' || job.worktree === null || !existsSync(job.worktree);
  if (!cleaned) return { ...(await worktreeTree(job.repo, job.worktree!, job.branch)), source: 'worktree' };
  const ref = job.evidence?.snapshotSha ?? job.evidence?.snapshotRef;
  if (!ref) return { unavailable: job.cleanup?.phase === 'complete' ? 'cleaned up without a snapshot' : 'no worktree and no snapshot' };
  const res = await runGit(['rev-parse', '--verify', '-q', `${ref}^{tree}`], { cwd: job.repo, allowFailure: true });
  if (res.code !== 0) return { unavailable: `its snapshot ${ref} is no longer in the repository` };
  return { tree: res.stdout.trim(), source: 'snapshot', head: job.evidence?.headSha ?? null };
}

/**
 * Where the attempt's own changes start: where it started (`baseSha`), or — once Update from Base
 * brought the base in — the base commit it last took (the merge base of its head and the base
 * now), so what the base gained is not counted as the attempt's. A merge base that is not at or
 * after where it started (the base now names another line of history) changes nothing.
 */
export async function ownChangesFrom(job: JobRecord, head: string | null): Promise<string> {
  const started = job.baseSha!;
  if (!head) return started;
  const base = await runGit(['rev-parse', '--verify', '-q', '--end-of-options', `${job.base ?? 'HEAD'}^{commit}`], { cwd: job.repo, allowFailure: true });
  if (base.code !== 0) return started;
  const meet = await runGit(['merge-base', '--end-of-options', head, base.stdout.trim()], { cwd: job.repo, allowFailure: true });
  const from = meet.stdout.trim();
  if (meet.code !== 0 || !from || from === started) return started;
  const later = await runGit(['merge-base', '--is-ancestor', '--end-of-options', started, from], { cwd: job.repo, allowFailure: true });
  return later.code === 0 ? from : started;
}

/** Files changed from `from` to `to` (tree-ishes), with lines added and removed; renames as delete + add. */
export async function fileChanges(repo: string, from: string, to: string): Promise<FileChange[]> {
  const res = await runGit(['diff', '--numstat', '-z', '--no-renames', '--no-ext-diff', ALL_SUBMODULES, from, to, '--'], { cwd: repo });
  const out: FileChange[] = [];
  for (const record of res.stdout.split('\0')) {
    if (!record) continue;
    const [added, removed, ...rest] = record.split('\t');
    out.push({ path: rest.join('\t'), added: added === '-' ? null : Number(added), removed: removed === '-' ? null : Number(removed) });
  }
  // Two attempts that differ only by an executable bit, or by a symbolic link in place of a file
  // with the same text, read the same in line counts (+0 −0, +1 −0): the modes say which is which.
  const kinds = await modeKinds(repo, from, to);
  for (const f of out) {
    const kind = kinds.get(f.path);
    if (kind) f.kind = kind;
  }
  return out;
}

const LINK = '120000';
const EXEC = '100755';
const ABSENT = '000000';

/** Of each changed path, what its modes say that line counts do not (see FileChange.kind). */
async function modeKinds(repo: string, from: string, to: string): Promise<Map<string, string>> {
  const res = await runGit(['diff', '--raw', '-z', '--no-renames', '--no-ext-diff', '--no-abbrev', ALL_SUBMODULES, from, to, '--'], { cwd: repo });
  const kinds = new Map<string, string>();
  const fields = res.stdout.split('\0');
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [oldMode, newMode] = fields[i].replace(/^:/, '').split(' ');
    const kind = modeKind(oldMode, newMode);
    if (kind) kinds.set(fields[i + 1], kind);
  }
  return kinds;
}

function modeKind(oldMode: string, newMode: string): string | undefined {
  if (newMode === LINK) return oldMode === LINK || oldMode === ABSENT ? 'symlink' : 'now a symlink';
  if (oldMode === LINK) return newMode === ABSENT ? 'symlink' : 'no longer a symlink';
  // A deleted executable (or the old side of a rename, which --no-renames lists as delete + add) is
  // no file made executable: only what is there afterwards is labelled.
  if (newMode === ABSENT) return undefined;
  if (oldMode === ABSENT) return newMode === EXEC ? 'executable' : undefined;
  if (oldMode !== newMode && newMode === EXEC) return 'executable';
  if (oldMode !== newMode && oldMode === EXEC) return 'not executable';
  return undefined;
}

/** The added lines of each text file changed from `from` to `to`, by path. */
export async function addedLines(repo: string, from: string, to: string): Promise<Map<string, string[]>> {
  const res = await runGit(['diff', '--unified=0', '--no-color', '--no-renames', '--no-ext-diff', '--src-prefix=a/', '--dst-prefix=b/', ALL_SUBMODULES, from, to, '--'], { cwd: repo });
  const byFile = new Map<string, string[]>();
  let current: string[] | undefined;
  // Between a `diff --git` line and its first hunk: only there is `+++ ` a file's name (an added line
  // "++ x" also reads "+++ x"; inside a hunk, `diff --git` is a line's text only after its +, - or space).
  let inHeader = false;
  for (const line of res.stdout.split('\n')) {
    if (line.startsWith('diff --git ')) {
      current = undefined;
      inHeader = true;
    } else if (inHeader && line.startsWith('@@')) {
      inHeader = false;
    } else if (inHeader && line.startsWith('+++ ')) {
      const name = patchHeaderName(line.slice(4));
      if (name === '/dev/null') continue;
      current = [];
      byFile.set(name.replace(/^b\//, ''), current);
    } else if (!inHeader && current && line.startsWith('+')) {
      current.push(line.slice(1));
    }
  }
  return byFile;
}

/** Commits on `head` that `base` does not have. */
export async function commitsSince(repo: string, base: string, head: string): Promise<number> {
  const res = await runGit(['rev-list', '--count', `${base}..${head}`], { cwd: repo, allowFailure: true });
  return res.code === 0 ? Number(res.stdout.trim()) : 0;
}
