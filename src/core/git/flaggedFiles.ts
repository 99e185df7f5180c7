/**
 * Files git was told not to look at: index entries flagged `assume-unchanged`
 * (`update-index --assume-unchanged`) or `skip-worktree` (sparse checkouts, and
 * people hiding a local config edit). `git status` and `git add -A` skip them,
 * so an edit to one is uncommitted work that nothing else reports: every check
 * for local changes and every commit of "everything" asks here too.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { runGit } from './runGit';
import { encodeName, fsPath } from './pathBytes';
import { indexHasFlaggedEntries } from './indexFlags';
import { readGitBytes } from './gitFileText';

export interface IndexEntry {
  /** `ls-files -v` tag: `H` plain, `S` skip-worktree, lower case assume-unchanged, … */
  tag: string;
  mode: string;
  sha: string;
  stage: string;
  path: string;
}

/** Every index entry as (tag, mode, object, stage, path); `ls-files -s -v -z` keeps any byte of a path intact. */
export async function indexEntries(worktree: string, env?: NodeJS.ProcessEnv): Promise<IndexEntry[]> {
  const res = await runGit(['ls-files', '-s', '-v', '-z'], { cwd: worktree, env: { GIT_OPTIONAL_LOCKS: '0', ...env }, names: true });
  const out: IndexEntry[] = [];
  for (const field of res.stdout.split('\0')) {
    if (!field) continue;
    // "<tag> <mode> <sha> <stage>\t<path>"
    const tab = field.indexOf('\t');
    const [tag, mode, sha, stage] = field.slice(0, tab).split(' ');
    out.push({ tag, mode, sha, stage, path: field.slice(tab + 1) });
  }
  return out;
}

export const isAssumeUnchanged = (e: IndexEntry): boolean => e.tag >= 'a' && e.tag <= 'z';
export const isSkipWorktree = (e: IndexEntry): boolean => e.tag === 'S' || e.tag === 's';

async function lstatOrNull(file: string) {
  return fs.lstat(fsPath(file)).catch(() => null);
}

/**
 * The flagged entries git must read from the disk: every assume-unchanged one, and the
 * skip-worktree ones whose file is there (an absent one is a sparse checkout's, not a deletion).
 */
export async function flaggedOnDisk(worktree: string, entries: readonly IndexEntry[]): Promise<IndexEntry[]> {
  const flagged: IndexEntry[] = [];
  for (const e of entries) {
    if (isSkipWorktree(e)) {
      if (await lstatOrNull(path.join(worktree, e.path))) flagged.push(e);
    } else if (isAssumeUnchanged(e)) flagged.push(e);
  }
  return flagged;
}

/**
 * The skip-worktree entries whose file is absent: a sparse checkout's files left out of it, no
 * deletions. An index read fresh from a commit lacks their flags, and `add -A --sparse` would stage
 * each as deleted: the caller flags them there again.
 */
export async function skippedAndAbsent(worktree: string, env?: NodeJS.ProcessEnv): Promise<string[]> {
  // Almost no index has a flagged entry: the index file says so without a git process.
  if ((await indexHasFlaggedEntries(worktree, env)) === false) return [];
  const absent: string[] = [];
  for (const e of await indexEntries(worktree, env)) {
    if (isSkipWorktree(e) && !(await lstatOrNull(path.join(worktree, e.path)))) absent.push(e.path);
  }
  return absent;
}

/** The mode git would record for what is on disk, or null for something it cannot hold as a blob. */
function modeOnDisk(st: { isSymbolicLink(): boolean; isFile(): boolean; mode: number }): string | null {
  if (st.isSymbolicLink()) return '120000';
  if (st.isFile()) return st.mode & 0o111 ? '100755' : '100644';
  return null;
}

/** The repository's core.fileMode and core.symlinks (each true unless set false), which say what git counts as a change of mode. */
async function modeRules(worktree: string, env?: NodeJS.ProcessEnv): Promise<{ fileMode: boolean; symlinks: boolean }> {
  const res = await runGit(['config', '--type=bool', '--get-regexp', '^core\\.(filemode|symlinks)$'], { cwd: worktree, env, allowFailure: true });
  const set = new Map(res.stdout.split('\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf(' ')).toLowerCase(), l.slice(l.indexOf(' ') + 1)]));
  return { fileMode: set.get('core.filemode') !== 'false', symlinks: set.get('core.symlinks') !== 'false' };
}

/** A symlink's entry with a plain file on disk under core.symlinks=false: compared by the file's bytes. */
const SYMLINK_AS_FILE = 'symlink-as-file';

/**
 * The mode of a file on disk as git compares it with the index: with core.fileMode=false the executable bit is
 * not looked at (the index's mode stands), with core.symlinks=false a symlink's entry may be a plain file.
 */
function modeAsGitSees(disk: string | null, indexed: string, rules: { fileMode: boolean; symlinks: boolean }): string | null {
  const regular = (m: string | null) => m === '100644' || m === '100755';
  if (!rules.fileMode && regular(disk) && regular(indexed)) return indexed;
  if (!rules.symlinks && indexed === '120000' && regular(disk)) return SYMLINK_AS_FILE;
  return disk;
}

/** A blob's object id computed as git does, for the repository's hash (SHA-1 ids are 40 digits, SHA-256 ones 64). */
function blobId(content: Buffer, idLength: number): string {
  return createHash(idLength === 64 ? 'sha256' : 'sha1')
    .update(`blob ${content.length}\0`)
    .update(content)
    .digest('hex');
}

/**
 * The flagged entries whose file differs from the index: content (through git's own filters,
 * as `add` would see it), file type, executable bit, or removal. A path that cannot be compared
 * (a newline in its name, which `--stdin-paths` cannot carry) counts as edited: asking once too
 * often is safe, missing an edit is not.
 */
export async function flaggedEdits(worktree: string, entries?: readonly IndexEntry[], env?: NodeJS.ProcessEnv): Promise<IndexEntry[]> {
  // Almost no index has a flagged entry: the index file says so without a git process.
  if (entries === undefined && (await indexHasFlaggedEntries(worktree, env)) === false) return [];
  const all = entries ?? (await indexEntries(worktree, env));
  const flagged = (await flaggedOnDisk(worktree, all)).filter((e) => e.mode !== '160000' && e.stage === '0');
  if (flagged.length === 0) return [];
  const edited: IndexEntry[] = [];
  const toHash: IndexEntry[] = [];
  const rules = await modeRules(worktree, env);
  for (const e of flagged) {
    const file = path.join(worktree, e.path);
    const st = await lstatOrNull(file);
    const mode = st ? modeAsGitSees(modeOnDisk(st), e.mode, rules) : null;
    if (mode === SYMLINK_AS_FILE) {
      // core.symlinks=false: git checks the link out as a file holding its target, and compares that file's bytes.
      // Read non-blocking: a FIFO swapped in since the lstat is refused, never waited on (bug 224).
      if (blobId(await readGitBytes(fsPath(file)), e.sha.length) !== e.sha) edited.push(e);
    } else if (mode === null || mode !== e.mode) edited.push(e);
    else if (mode === '120000') {
      if (blobId(Buffer.from(await fs.readlink(fsPath(file), { encoding: 'buffer' })), e.sha.length) !== e.sha) edited.push(e);
    } else if (e.path.includes('\n')) edited.push(e);
    else toHash.push(e);
  }
  if (toHash.length > 0) {
    const res = await runGit(['hash-object', '--stdin-paths'], { cwd: worktree, env, input: encodeName(toHash.map((e) => `${e.path}\n`).join('')) });
    const ids = res.stdout.split('\n');
    toHash.forEach((e, i) => {
      if (ids[i] !== e.sha) edited.push(e);
    });
  }
  return edited;
}

/**
 * Writes `entries` again in the index `env` names (same mode, object and stage; no flags, no stat
 * data), so that the next `add` reads each of their files from the disk. Clearing the flags alone
 * is not enough: git keeps no stat data fresh for a flagged entry, so a file edited to the same size
 * within the second its entry was recorded still matches it, and git would keep the old content.
 */
export async function rewriteWithoutFlags(worktree: string, entries: readonly IndexEntry[], env?: NodeJS.ProcessEnv): Promise<void> {
  const info = entries.map((e) => `${e.mode} ${e.sha} ${e.stage}\t${e.path}\0`).join('');
  await runGit(['update-index', '-z', '--index-info'], { cwd: worktree, env, input: encodeName(info) });
}

/** Sets again the flags `entries` had (after their content was committed, they mean what they meant). */
export async function restoreFlags(worktree: string, entries: readonly IndexEntry[], env?: NodeJS.ProcessEnv): Promise<void> {
  await setIndexFlags(worktree, { skipWorktree: entries.filter(isSkipWorktree).map((e) => e.path), assumeUnchanged: entries.filter(isAssumeUnchanged).map((e) => e.path) }, env);
}

/** Flags the index entries of these paths skip-worktree and assume-unchanged (git fails on a path it does not hold). */
export async function setIndexFlags(worktree: string, paths: { skipWorktree?: readonly string[]; assumeUnchanged?: readonly string[] }, env?: NodeJS.ProcessEnv): Promise<void> {
  const list = (ps: readonly string[]) => encodeName(ps.map((p) => `${p}\0`).join(''));
  const skip = paths.skipWorktree ?? [];
  const assume = paths.assumeUnchanged ?? [];
  if (skip.length > 0) await runGit(['update-index', '--skip-worktree', '-z', '--stdin'], { cwd: worktree, env, input: list(skip) });
  if (assume.length > 0) await runGit(['update-index', '--assume-unchanged', '-z', '--stdin'], { cwd: worktree, env, input: list(assume) });
}
