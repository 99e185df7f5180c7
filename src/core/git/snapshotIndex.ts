/**
 * Fills a temporary index with the worktree exactly as it is on disk, without
 * touching the worktree's own index (which may be locked by a crashed git).
 *
 * Nothing the agent did may hide content from it:
 * - `assume-unchanged` and `skip-worktree` entries are written again in the copy
 *   without their flags and stat data, so an edited file flagged that way is
 *   read from disk even when its stat still matches (a skip-worktree entry whose
 *   file is absent stays as it was: that is a sparse checkout, not a deletion);
 * - `core.fileMode`/`core.symlinks` set to false would record an executable bit
 *   or a symlink wrongly: both are forced on;
 * - nested repositories that git does not track (an agent's own `git init`) are
 *   left out: git can only record them as a bare commit id, so they go whole
 *   into the archive instead (registered submodules keep their gitlink here) —
 *   except the files below them that the worktree's index tracks: those are
 *   brought up to date from the disk (edited, deleted), or the old content
 *   would stand in the snapshot for the agent's edit;
 * - `core.safecrlf` would refuse a file whose line endings git cannot convert
 *   back: its exact bytes are kept beside the snapshot (exactBytes.ts), so it is off;
 * - a path `add` will not take (unreadable, an entry that cannot be stat'ed, a name git
 *   refuses such as `.GIT/x` or `.gitmodules` as a symlink, a tracked file turned into a
 *   FIFO, bytes its working-tree-encoding cannot decode or a BOM it forbids, a required clean
 *   filter that fails) failed the whole capture, every retry and every Clean Up Anyway: each
 *   is learnt from git's own error line and left out
 *   of the `add`, and the capture archives it like a file git does not see, or, when it
 *   cannot be read either, stops for consent to lose it (evidence.ts).
 */
import { promises as fs } from 'node:fs';
import { describeError, failure } from '../common/errors';
import { firstLine, GIT_BULK_TIMEOUT_MS, isGitTimeout, runGit } from './runGit';
import { sparseAdd } from './sparseAdd';
import { flaggedOnDisk, indexEntries, rewriteWithoutFlags } from './flaggedFiles';
import { encodeName } from './pathBytes';
import { filteredChangedPaths, filtersOff } from './filteredPaths';

/** Settings that make `git add` record what is on disk, whatever the repository's config says. */
// core.safecrlf=false: a warning-turned-error must not refuse a capture of bytes as they are.
// core.ignorecase=false: with it true, git refuses a second name that differs only in case ("will not add file alias").
const ADDS_ALL_CONFIG = ['-c', 'core.safecrlf=false', '-c', 'core.ignorecase=false'];
export const EXACT_CONFIG = ['-c', 'core.fileMode=true', '-c', 'core.symlinks=true', ...ADDS_ALL_CONFIG];

export interface StageOptions {
  worktree: string;
  realIndex: string;
  tempIndex: string;
  env: NodeJS.ProcessEnv;
  /** Nested repositories found by the walk (relative paths). */
  nestedRepos: readonly string[];
  /**
   * Modes as `git add` records them under the repository's own core.fileMode and core.symlinks (a
   * chmod git is told to ignore is no change), for a state that is to be landed like a commit;
   * else exactly as on disk, for a snapshot that must keep every bit.
   */
  asGitAdds?: boolean;
  /**
   * Entries the walk saw listed but could not lstat (in a folder that can be listed, not searched):
   * git dies at the first of them ("unable to stat"), naming one a run, so 64 of them failed every
   * capture, Clean Up Anyway included. Left out from the first run (evidence.ts asks consent for them).
   * Not a folder that cannot be listed (an entry of the walk, lstat'ed by its parent's scan): git may still add the files in it.
   */
  unstatable?: readonly string[];
  /** Bound of each `add` (default GIT_BULK_TIMEOUT_MS). */
  addTimeoutMs?: number;
  /** How long an `add` may make no progress before it is stopped like one at its bound (default: runGit's, GIT_STALL_MS). */
  addStallMs?: number;
}

/**
 * Makes git read the files it was told to skip (`assume-unchanged`, and `skip-worktree` where the
 * file is there); returns the gitlink paths of the index.
 *
 * Clearing the flags is not enough: git keeps no stat data fresh for a flagged entry, so a file
 * edited to the same size within the second its entry was recorded matches that stat, and unless
 * the index happens to be "racy" git trusts it and stages the old content (measured: lost in one CI
 * run out of several, once the index copy kept git's own racy rule). Each flagged entry is written
 * again through `--index-info` (same mode, object and stage, no flags, no stat data), so `add`
 * reads every one of them from the disk.
 */
async function unhideFlagged(opts: StageOptions): Promise<Set<string>> {
  const entries = await indexEntries(opts.worktree, opts.env);
  const gitlinks = new Set(entries.filter((e) => e.mode === '160000').map((e) => e.path));
  const flagged = await flaggedOnDisk(opts.worktree, entries);
  if (flagged.length > 0) await rewriteWithoutFlags(opts.worktree, flagged, opts.env);
  return gitlinks;
}

/**
 * Of `paths`, those an ignore rule matches (directly or through an ignored parent folder). git add
 * refuses a pathspec naming an ignored path, even an excluding one, and then stages nothing more.
 */
async function ignoredOf(opts: StageOptions, paths: readonly string[]): Promise<Set<string>> {
  if (paths.length === 0) return new Set();
  // Each path as `./path`: check-ignore reads its input as pathspecs, so a folder named `:(glob)n*` would be
  // magic and fail the whole call; it supports no `literal` magic (nor GIT_LITERAL_PATHSPECS). It answers in kind.
  const res = await runGit(['check-ignore', '-z', '--stdin'], { cwd: opts.worktree, env: opts.env, input: encodeName(paths.map((p) => `./${p}\0`).join('')), allowFailure: true, names: true });
  return new Set(res.stdout.split('\0').filter((p) => p.length > 0).map((p) => p.replace(/^\.\//, '')));
}

/** Whether `rel` lies below one of `folders` (git's own paths: '/'-separated, relative). */
function isBelowAny(rel: string, folders: Iterable<string>): boolean {
  for (const folder of folders) if (rel.startsWith(`${folder}/`)) return true;
  return false;
}

interface AddResult {
  code: number;
  stderr: string;
  /** git was stopped at its bound: starting again from HEAD would only wait as long again. */
  hung?: boolean;
}

/** `off`: `-c` settings put before each `add` (every filter driver off, once one was stopped). */
async function addAll(opts: StageOptions, gitlinks: ReadonlySet<string>, refused: ReadonlySet<string>, off: readonly string[]): Promise<AddResult> {
  // A repository inside a submodule is the submodule's, not this index's: git never adds below a
  // gitlink, and refuses a pathspec there ("is in submodule"), which failed every capture.
  const nested = opts.nestedRepos.filter((p) => !gitlinks.has(p) && !isBelowAny(p, gitlinks));
  // An ignored nested repository is not added anyway (it is archived with the other ignored files).
  const ignored = await ignoredOf(opts, nested);
  const excluded = [...nested.filter((p) => !ignored.has(p)), ...refused].map((p) => `:(top,literal,exclude)${p}`);
  // The pathspecs go in on stdin, NUL-separated: a name's bytes (pathBytes.ts) cannot all pass through argv.
  const add = await addPathspecs(opts, off, ['-A'], ['.', ...excluded]);
  if (add.code !== 0 || nested.length === 0) return add;
  // Files the index tracks below a nested repository (the agent ran `git init` in a tracked folder):
  // `add -u` takes each one's bytes from the disk, or drops it when deleted, and adds nothing untracked.
  return addPathspecs(opts, off, ['-u'], [...nested.map((p) => `:(top,literal)${p}`), ...[...refused].map((p) => `:(top,literal,exclude)${p}`)]);
}

async function addPathspecs(opts: StageOptions, off: readonly string[], flags: string[], pathspecs: string[]): Promise<AddResult> {
  // --ignore-errors: every path git cannot index is named in one run, not only the first (the exit code still says so).
  // --sparse: in a sparse checkout git refuses (exit 1, for the whole add) a file the agent wrote outside
  // its patterns, so one such file failed every capture; a skip-worktree entry absent from disk stays as it was.
  // Only to a git that takes it (2.34+, sparseAdd.ts): an older one fails on the option.
  const sparse = await sparseAdd();
  return runGit([...(opts.asGitAdds ? ADDS_ALL_CONFIG : EXACT_CONFIG), ...off, 'add', '--ignore-errors', ...sparse.flag, ...flags, '--pathspec-from-file=-', '--pathspec-file-nul'], {
    cwd: opts.worktree,
    env: { ...opts.env, ...sparse.env },
    input: encodeName(pathspecs.map((p) => `${p}\0`).join('')),
    allowFailure: true,
    timeoutMs: opts.addTimeoutMs ?? GIT_BULK_TIMEOUT_MS,
    stallMs: opts.addStallMs,
    errorNames: true,
  }).catch(async (err: unknown) => {
    // Only a stop at the bound: git that could not be run at all is no hang (stageEverything starts over from HEAD).
    if (!isGitTimeout(err)) throw err;
    // Stopped at its bound, most likely by a clean filter that hangs (one may answer for a file and
    // not the next): a failure that names no path, so the files a filter reads are left out next run.
    // The killed git left the lock of our own scratch index, which would fail every later write.
    await fs.rm(`${opts.tempIndex}.lock`, { force: true });
    return { code: -1, stderr: describeError(err), hung: true };
  });
}

// The ways git cannot turn a file into its stored form, each fatal at the first such file: a
// required clean filter that fails or cannot be run (a git-lfs missing from the PATH of the process
// that cleans up), bytes its working-tree-encoding cannot decode, a byte order mark it forbids
// (UTF-16LE…) or lacks (UTF-16…), an encoding that does not come back the same
// (core.checkRoundtripEncoding). Each runs to the end of its line: a name may hold the words after it.
const CONVERSION_FAILED_LINES: readonly RegExp[] = [
  // Nothing quotes this name: it may not run on past a line of git's own.
  /^fatal: ((?:(?!\n(?:fatal|error|hint|warning): )[^])+?): clean filter '[^'\n]*' failed$/gm,
  /^fatal: failed to encode '([^]+?)' from \S+ to \S+$/gm,
  /^fatal: BOM is (?:prohibited|required) in '([^]+?)' if encoded as \S+$/gm,
  /^fatal: encoding '([^]+?)' from \S+ to \S+ and back is not the same$/gm,
];
const CONVERSION_FAILED = CONVERSION_FAILED_LINES.map((p) => new RegExp(p.source, 'm'));

/**
 * git's lines (LC_ALL=C, runGit.ts) that name a path `add` will not take. The name is git's own,
 * unquoted; it may hold a newline, so each pattern ends at text that only git writes.
 */
const REFUSALS: readonly RegExp[] = [
  /^error: open\("([^]+?)"\): /gm, // cannot be read
  /^error: unable to index file '([^]+?)'$/gm,
  /^fatal: unable to stat '([^]+?)': /gm, // in a folder that can be listed but not searched
  /^error: invalid path '([^]+?)'$/gm, // .GIT/x, GIT~1, sub/.git./x, .gitmodules as a symlink
  ...CONVERSION_FAILED_LINES,
  /^error: ([^\n]+?): can only add regular files, symbolic links or git-directories$/gm, // a FIFO where a tracked file was
];

/** The paths git's stderr says `add` refused. */
export function refusedPaths(stderr: string): string[] {
  const found = new Set<string>();
  for (const pattern of REFUSALS) for (const m of stderr.matchAll(pattern)) found.add(m[1]);
  return [...found];
}

/**
 * At most this many `add` runs learn refused paths. Refusals that are errors come all in one run
 * (--ignore-errors); one that is fatal (an un-encodable file, an entry that cannot be stat'ed)
 * stops git at the first, so each such path costs a run.
 */
const MAX_ADD_RUNS = 64;

/**
 * `add` again without the paths it refused until it takes the rest: a path git will not add must
 * not fail the capture of everything else (evidence.ts archives it, or asks consent to lose it).
 * Stops, failed, when a run names no new path (a failure that is not about one path) or after
 * MAX_ADD_RUNS runs.
 */
async function addLearning(opts: StageOptions, gitlinks: ReadonlySet<string>): Promise<AddResult & { refused: string[] }> {
  // An ignored one is not added anyway (evidence.ts archives it or asks consent to lose it), and git
  // refuses an excluding pathspec that names an ignored path, which failed every capture.
  const unstatable = opts.unstatable ?? [];
  const ignored = await ignoredOf(opts, unstatable);
  const refused = new Set<string>(unstatable.filter((p) => !ignored.has(p)));
  let filterLooks = 0;
  // After a stop, every later `add` runs with the filter drivers off: writing the index runs each "racily
  // clean" entry's file through its clean filter, the excluded ones too, so the next add hung as well.
  // With them off such an entry is only marked for a fresh look; a filtered file whose bytes differ
  // from its blob is left out (filteredChangedPaths, which looks with the filters off too) and archived.
  let off: string[] | null = null;
  for (let run = 1; ; run++) {
    const add = await addAll(opts, gitlinks, refused, off ?? []);
    // Tried again even when nothing more is learnt: the filters are what stopped it.
    const turnedOff = add.hung === true && off === null;
    if (turnedOff) off = await filtersOff(opts.worktree, opts.env);
    let learned = add.code === 0 ? [] : refusedPaths(add.stderr).filter((p) => !refused.has(p));
    // A dying filter process may stop git before it names the file (filteredPaths.ts), and a failing
    // clean filter or a forbidden byte order mark stops it at the first file, one a run, so 64 of
    // them failed every capture: the changed files a filter or an encoding reads are left out, then,
    // if that was not enough, every one.
    const conversionFailed = add.code !== 0 && CONVERSION_FAILED.some((p) => p.test(add.stderr));
    for (let looked = false; add.code !== 0 && filterLooks < 2 && (learned.length === 0 || (conversionFailed && !looked)); looked = true) {
      const more = await filteredChangedPaths(opts.worktree, opts.env, filterLooks++ === 1);
      learned = [...new Set([...learned, ...more])].filter((p) => !refused.has(p));
    }
    if ((learned.length === 0 && !turnedOff) || run === MAX_ADD_RUNS) return { ...add, refused: [...refused] };
    for (const p of learned) refused.add(p);
  }
}

/**
 * Stages the worktree into `opts.tempIndex`; returns the paths git would not add (left out: a
 * tracked one keeps the entry the index had, the caller keeps its bytes elsewhere).
 */
export async function stageEverything(opts: StageOptions): Promise<string[]> {
  let copied = false;
  try {
    // Index writes are lock + rename, so a copy is always a complete index (a leftover index.lock is ignored).
    const original = await fs.stat(opts.realIndex);
    await fs.copyFile(opts.realIndex, opts.tempIndex);
    // git trusts an entry's cached stat only when the file is older than the index ("racy git"):
    // a fresh mtime on the copy would hide a same-size edit made in the same second as the last
    // index write. Keep the original time, so the entries git itself would re-read are re-read, a
    // millisecond earlier so that no conversion (Date's whole milliseconds, utimes' seconds as a
    // double, a file system's coarser clock) can put the copy after the original. A whole second
    // earlier also re-read every file written in the second before the index: a worktree checked
    // out then was hashed again whole (measured: `add` 92 ms against 39 on 5,000 files).
    const when = new Date(original.mtimeMs - 1);
    await fs.utimes(opts.tempIndex, when, when);
    copied = true;
  } catch {
    // No readable index: start from HEAD below.
  }
  if (copied) {
    const add = await addLearning(opts, await unhideFlagged(opts)).catch(() => null);
    if (add?.code === 0) return add.refused;
    if (add?.hung) throw failure(`Could not capture the worktree ${opts.worktree}: ${firstLine(add.stderr)}`);
    // an unusable index copy: start over from HEAD
    await fs.rm(opts.tempIndex, { force: true });
  }
  await runGit(['read-tree', 'HEAD'], { cwd: opts.worktree, env: opts.env });
  const add = await addLearning(opts, await unhideFlagged(opts));
  if (add.code !== 0) throw failure(`Could not capture the worktree ${opts.worktree}: ${firstLine(add.stderr)}`);
  return add.refused;
}
