/**
 * A worktree's state is written as a tree through a temporary index (`worktreeTree`). Made fresh
 * (`read-tree HEAD`), that index knows no file's stat data, so `git add -A` hashes every tracked file
 * (a 5,000-file repository: every file read, each check and each compare). Seeded from a copy of the
 * worktree's own index, git hashes only what its stat data says changed, as `git status` does.
 *
 * A copy is only ever a hint, never trusted beyond what git's own checks prove:
 *  - entries flagged assume-unchanged or skip-worktree would be taken as they are whatever is on
 *    disk (the trap of bug 40): an index with any such flag is not used;
 *  - racily clean entries (changed within the same tick as the index was written) are judged
 *    against the index file's time: the copy gets the time the real index had before it was copied
 *    (a newer index copied meanwhile then only makes more entries racy, read again);
 *  - the fsmonitor's and the untracked cache's answers, and a split index's shared part, are not
 *    used (`HINT_ONLY`); the stat checks bug 40 turned on stay on (runGit's STAT_CHECKED);
 *  - git compares times in whole seconds: a same-size rewrite within the second git looked at the
 *    file, or one that put an old mtime back (`cp -p`, `rsync -t`) within the second its index was
 *    written, matches. So an entry is kept only when the file's change time, modification time,
 *    size and inode equal the entry's to the nanosecond (`staleEntries`: any write moves the change
 *    time); every other entry is dropped from the copy, and `add -A` hashes its file anew;
 *  - anything unreadable or odd falls back to a fresh index.
 */
import { BigIntStats, lstatSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { GIT_BULK_TIMEOUT_MS, runGit } from '../git/runGit';

/** What makes git rely on anything but the stat data of a copied index: all off. */
export const HINT_ONLY: Readonly<Record<string, string>> = {
  'core.fsmonitor': 'false',
  'core.untrackedCache': 'false',
  'core.splitIndex': 'false',
};

/** Whether `git ls-files -v -z` lists an entry flagged assume-unchanged (a lower-case tag) or skip-worktree (S). */
function anyFlagged(listing: string): boolean {
  for (const entry of listing.split('\0')) {
    const tag = entry.charAt(0);
    if (tag === 'S' || (tag >= 'a' && tag <= 'z')) return true;
  }
  return false;
}

/** Copies `worktree`'s own index to `index` for `add -A` to start from; false (nothing at `index`) when it may not be used. */
export async function seedFromOwnIndex(worktree: string, index: string): Promise<boolean> {
  try {
    const where = (await runGit(['rev-parse', '--git-path', 'index'], { cwd: worktree })).stdout.trim();
    const own = path.resolve(worktree, where);
    const before = await fs.stat(own);
    await fs.copyFile(own, index);
    await fs.utimes(index, before.atime, before.mtime);
    const env = { GIT_INDEX_FILE: index };
    const listing = await runGit(['ls-files', '-v', '-z'], { cwd: worktree, env, config: HINT_ONLY, timeoutMs: GIT_BULK_TIMEOUT_MS });
    if (!anyFlagged(listing.stdout)) {
      const stale = await staleEntries(worktree, index);
      if (stale.length > 0) await runGit(['update-index', '--force-remove', '-z', '--stdin'], { cwd: worktree, env, config: HINT_ONLY, input: stale.join('\0') + '\0', timeoutMs: GIT_BULK_TIMEOUT_MS });
      return true;
    }
  } catch {
    // no index of its own yet, or unreadable: a fresh one
  }
  await fs.rm(index, { force: true });
  return false;
}

interface EntryStat {
  path: string;
  ctime: bigint;
  mtime: bigint;
  ino: bigint;
  size: bigint;
}

/** `  ctime: 1796621863:940682906` → nanoseconds; `  size: 78\tflags: 0` → 78 (the first number after `name: `). */
function field(line: string | undefined, name: string, withNs: boolean): bigint {
  const at = line?.indexOf(`${name}: `) ?? -1;
  if (line === undefined || at < 0) return -1n;
  const rest = line.slice(at + name.length + 2);
  const m = withNs ? /^(\d+):(\d+)/.exec(rest) : /^(\d+)/.exec(rest);
  if (!m) return -1n;
  return withNs ? BigInt(m[1]) * 1_000_000_000n + BigInt(m[2]) : BigInt(m[1]);
}

/** The entries of `git ls-files --debug -z`: the path (NUL-ended), then five lines of stat data. */
function parseDebugListing(text: string): EntryStat[] {
  const entries: EntryStat[] = [];
  let at = 0;
  while (at < text.length) {
    const nul = text.indexOf('\0', at);
    if (nul < 0) break;
    let end = nul + 1;
    for (let line = 0; line < 5 && end > 0; line++) end = text.indexOf('\n', end) + 1;
    if (end <= 0) break;
    const [ctime, mtime, devIno, , sizeFlags] = text.slice(nul + 1, end - 1).split('\n');
    entries.push({ path: text.slice(at, nul), ctime: field(ctime, 'ctime', true), mtime: field(mtime, 'mtime', true), ino: field(devIno, 'ino', false), size: field(sizeFlags, 'size', false) });
    at = end;
  }
  return entries;
}

/** How many files are looked at between two turns of the event loop (a look is a few microseconds). */
const LOOKS_PER_TURN = 500;

/**
 * Paths whose entry in `index` does not match its file to the nanosecond (or whose file is gone:
 * `add -A` removes it either way).
 */
export async function staleEntries(worktree: string, index: string): Promise<string[]> {
  const listing = await runGit(['ls-files', '--debug', '-z'], { cwd: worktree, env: { GIT_INDEX_FILE: index }, config: HINT_ONLY, timeoutMs: GIT_BULK_TIMEOUT_MS });
  const entries = parseDebugListing(listing.stdout);
  const stale = new Set<string>();
  for (let i = 0; i < entries.length; i++) {
    if (i > 0 && i % LOOKS_PER_TURN === 0) await new Promise((r) => setImmediate(r));
    const e = entries[i];
    let st: BigIntStats | undefined;
    try {
      st = lstatSync(path.join(worktree, e.path), { bigint: true });
    } catch {
      st = undefined;
    }
    // Git keeps inode numbers and sizes in 32 bits.
    if (!st || st.ctimeNs !== e.ctime || st.mtimeNs !== e.mtime || st.ino % 4294967296n !== e.ino || st.size % 4294967296n !== e.size) stale.add(e.path);
  }
  return [...stale];
}
