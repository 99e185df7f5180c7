/**
 * The paths a failing filter driver may have stopped `git add` on, when git's
 * lines name none. A long-running filter (`filter.<driver>.process`, as git-lfs
 * installs it) that cannot start or dies makes git exit on the broken pipe
 * (*the remote end hung up unexpectedly*) before, or instead of, the line that
 * names the file (`<path>: clean filter '<driver>' failed`), depending on which
 * write meets the dead process first. So the capture (snapshotIndex.ts) leaves
 * out every path that `add` would run through a filter: the untracked ones and
 * the tracked ones whose files differ from the index. They are archived as they
 * are on disk, like any path git would not take; a working filter's paths are
 * kept that way too, which costs archive space and loses no byte.
 *
 * The same look serves the conversions git dies on at the first file, naming only it (a failing
 * clean filter, a byte order mark its working-tree-encoding forbids): learnt one a run, 64 such
 * files failed every capture. So the files a `working-tree-encoding` names are found here too.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { GIT_BULK_TIMEOUT_MS, runGit, type GitResult } from './runGit';
import { fsPath } from './pathBytes';
import { checkAttributes } from './conversions';
import { FILTER_KEYS, filtersOffArgs } from './filterDrivers';

/**
 * `-c` settings that turn every configured filter driver off, both sides: empty commands are no filter to git.
 * Also restore's checkout (restore.ts): a smudge filter that hangs held it for the bulk timeout.
 */
export async function filtersOff(worktree: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const res = await runGit(['config', '--name-only', '--get-regexp', FILTER_KEYS], { cwd: worktree, env, allowFailure: true });
  return filtersOffArgs(res.stdout.split('\n').map((k) => k.trim()));
}


/**
 * Of the paths `add -A` would read (untracked, or differing from the index), those a filter or
 * working-tree-encoding attribute names. `everyTracked`: every tracked one too, for when those were not enough: `add`
 * also reads a "racily clean" file (written in the second its entry was), which may be unchanged.
 */
export async function filteredChangedPaths(worktree: string, env: NodeJS.ProcessEnv, everyTracked = false): Promise<string[]> {
  const off = await filtersOff(worktree, env);
  const opts = { cwd: worktree, env, allowFailure: true, names: true, timeoutMs: GIT_BULK_TIMEOUT_MS };
  // With the filters off nothing here can die on one; a file whose stat alone changed is listed
  // too (its raw bytes differ from the filtered blob), which only archives it needlessly.
  const untracked = await runGit([...off, 'ls-files', '-z', '--others', '--exclude-standard'], opts);
  const changed = await runGit(everyTracked ? ['ls-files', '-z', '--cached'] : [...off, 'diff-files', '-z', '--name-only', '--no-renames'], opts);
  if (untracked.code !== 0 || changed.code !== 0) return [];
  const candidates = [...new Set([...untracked.stdout.split('\0'), ...changed.stdout.split('\0')].filter((p) => p.length > 0 && !p.endsWith('/')))];
  if (candidates.length === 0) return [];
  const attrs = await checkAttributes(worktree, env, candidates, ['filter', 'working-tree-encoding'], true);
  if (attrs === null) return [];
  const named = [...attrs].filter(([, values]) => [...values.values()].some((v) => v !== 'unspecified' && v !== 'unset')).map(([p]) => p);
  const found = named;
  // A deleted file runs through no filter, and left out it would stand in the snapshot as it was.
  const onDisk = await Promise.all(found.map((p) => fs.lstat(fsPath(path.join(worktree, p))).then(() => true, () => false)));
  return found.filter((_, i) => onDisk[i]);
}

/**
 * `write-tree` of the index `env` names, with every filter off (`off`, filtersOff's settings): writing
 * an index runs each "racily clean" entry's file through its clean filter, and one that cannot start
 * failed the write, one that hangs held it to its timeout (bug 124's review). The tree is the index's
 * either way; only the cached stat data differs.
 */
export async function writeTree(worktree: string, env: NodeJS.ProcessEnv, off: readonly string[]): Promise<GitResult> {
  return runGit([...off, 'write-tree'], { cwd: worktree, env, allowFailure: true });
}
