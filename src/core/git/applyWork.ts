/**
 * Puts a commit's changes into a working tree as uncommitted changes, by a
 * three-way merge: the merge is computed in the object database against what
 * is checked out (HEAD), so a conflict changes nothing; never into a worktree
 * where a git operation stopped half-way; the result's
 * difference from HEAD is then applied to files that have no local changes
 * (checked first: a path the person changed, staged or left untracked, an
 * ignored file, or a file of the person's in a folder the patch replaces is
 * never overwritten — the apply is refused with the list; a repository of theirs
 * where the patch puts a submodule or files too). A submodule's new commit, which
 * git apply does not write, is staged with `.gitmodules` (`stageGitlinks`).
 */
import { describeError, failure } from '../common/errors';
import { prepareApplyUndo } from './applyUndo';
import { stageGitlinks } from './applyGitlinks';
import { localChanges } from './checkout';
import { danglingGitlinks, nestedRepositoryError } from './danglingGitlinks';
import { fewPaths, LandingConflict } from './landingConflict';
import { mergeTrees } from './mergeTree';
import { encodeName } from './pathBytes';
import { untrackedInTheWay, untrackedInTheWayError } from './untrackedInTheWay';
import { ALL_SUBMODULES, firstLine, GIT_BULK_TIMEOUT_MS, runGit } from './runGit';
import { treeChanges } from './treeChanges';
import { assertNothingHalfDone } from './worktreeReadiness';
import { startEarly } from '../common/early';

export interface ApplyOptions {
  /** Called once every check has passed, right before the first file is written: the trace of an apply under way. */
  beforeWrite?(): Promise<void>;
  /**
   * An earlier apply of this work started and was never recorded: the local changes in the way may be
   * its writes. Only the refusal says so — files that look like the work are never taken as applied.
   */
  earlierStopped?: boolean;
  /** Called once the files a failed apply had begun to write are all put back: the trace `beforeWrite` left is then no stopped apply's. */
  afterUndo?(): Promise<void>;
  /** Bound of the `git apply` (default GIT_BULK_TIMEOUT_MS). */
  applyTimeoutMs?: number;
}

/** The paths changed in `target`. */
export async function applyCommitToWorktree(target: string, source: string, sourceName: string, options: ApplyOptions = {}): Promise<string[]> {
  // Changes applied on a merge, rebase or cherry-pick stopped half-way would be taken into the
  // person's next `--continue` commit, or discarded by their `rebase --abort` (a hard reset).
  const [headRes] = await Promise.all([runGit(['rev-parse', '--verify', '--quiet', 'HEAD'], { cwd: target, allowFailure: true }), assertNothingHalfDone(target, target)]);
  if (headRes.code !== 0) throw failure(`${target} has no commit checked out to apply onto; nothing was changed.`);
  const head = headRes.stdout.trim();
  const merged = await mergeTrees(target, head, source);
  if (!merged.clean) {
    const n = merged.conflicts.length;
    throw new LandingConflict(
      `${sourceName} conflicts with what is checked out in ${target} in ${n} file${n === 1 ? '' : 's'} (${fewPaths(merged.conflicts)}); nothing was changed.`,
      merged.conflicts,
    );
  }
  const diffArgs = [ALL_SUBMODULES, '--no-renames', '--no-ext-diff', '--no-textconv', head, merged.tree];
  const touched = (await runGit(['diff', '--name-only', '-z', ...diffArgs], { cwd: target, names: true })).stdout.split('\0').filter(Boolean);
  if (touched.length === 0) throw failure(`${sourceName} changes nothing in ${target}; nothing was changed.`, 'NOTHING_TO_LAND');
  const local = await localChanges(target);
  const untracked = new Set(local.untracked);
  const overlap = [...overlapping(touched, local.tracked), ...touched.filter((p) => untracked.has(p))];
  // A stopped apply's writes are refused as any local change (a match judged from the disk said
  // "applied" of work that was not all there); the refusal names it, and what to do.
  const stopped = options.earlierStopped === true ? stoppedApplyAdvice(sourceName) : null;
  if (overlap.length > 0) {
    throw failure(`Applying would overwrite your local changes to ${fewPaths(overlap)} in ${target}; ${stopped ?? 'commit or stash them and try again'} — nothing was changed.`, 'LOCAL_CHANGES');
  }
  // Exact paths are not enough: a folder the patch turns into a file may hold the person's files, and
  // an ignored file is in no status; git apply would stop half-way on the one and overwrite the other.
  const changes = startEarly(treeChanges(target, head, merged.tree));
  const [nested, inTheWay, undo, patch] = await Promise.all([
    danglingGitlinks(target, head, merged.tree, changes),
    untrackedInTheWay(target, head, [merged.tree], changes),
    prepareApplyUndo(target, head, merged.tree, changes),
    // The patch carries file contents, which are bytes (a Latin-1 file is not UTF-8): read and given back keeping every byte.
    runGit(['diff', '--binary', '--full-index', ...diffArgs], { cwd: target, timeoutMs: GIT_BULK_TIMEOUT_MS, names: true }),
  ]);
  // git apply makes an empty folder of a gitlink: the nested repository's files would never arrive.
  if (nested.length > 0) throw nestedRepositoryError(sourceName, nested);
  // `git status` names an untracked folder holding a repository of the person's as `dir/`, where the patch says `dir` (a submodule) or `dir/file`.
  const theirRepos = local.untracked.filter((p) => p.endsWith('/') && touched.some((t) => `${t}/`.startsWith(p)));
  if (inTheWay.length > 0 || theirRepos.length > 0) throw untrackedInTheWayError('Applying', target, [...theirRepos, ...inTheWay], stopped ?? undefined);
  await options.beforeWrite?.();
  // git apply writes the person's files through their smudge filters: one slow but working is let run
  // to the bound (stallMs 0). Stopped there (or cancelled), it may have written some files and cut one
  // short: that is a failed apply like any other, and is put back.
  const res = await runGit(['apply', '--binary', '--whitespace=nowarn'], { cwd: target, input: encodeName(patch.stdout), allowFailure: true, timeoutMs: options.applyTimeoutMs ?? GIT_BULK_TIMEOUT_MS, stallMs: 0 }).catch(
    (err: unknown) => ({ code: -1, stdout: '', stderr: describeError(err, 300) }),
  );
  // git apply writes no submodule's commit: those go into the index, or the change would never arrive.
  const staged = res.code === 0 ? await stageGitlinks(target, await changes).then(() => null, (err: unknown) => describeError(err, 300)) : null;
  if (res.code === 0 && staged === null) return touched;
  // git apply checks the whole patch before writing, but a write that fails after others (a name too
  // long, a full disk) leaves the files before it written: every touched path is put back.
  const why = staged ?? (firstLine(res.stderr) || `exit code ${res.code}`);
  try {
    await undo.undo();
  } catch (err) {
    throw failure(`Could not apply ${sourceName} in ${target}: ${why}, and putting back the files it had begun to change failed (${describeError(err, 300)}); check ${fewPaths(touched)} there.`);
  }
  await options.afterUndo?.();
  throw failure(`Could not apply ${sourceName} in ${target}: ${why}; nothing was changed.`);
}

/** What to do about local changes that may be a stopped apply's writes: look, put them back, apply again. */
function stoppedApplyAdvice(sourceName: string): string {
  return `an earlier apply of ${sourceName} was stopped before it finished, so they may be its writes: check them with git diff, put them back (git checkout HEAD -- <paths>, git clean for new files, or git stash -u) and apply again`;
}

/**
 * The paths where the person's changes to tracked files and the patch's meet: the same path, or one
 * inside the other (a submodule or file of theirs, staged, where the patch puts a folder's files,
 * or the reverse). Each is named by the deeper path, the one the person would look for.
 */
export function overlapping(touched: readonly string[], mine: readonly string[]): string[] {
  const theirs = new Set(mine);
  const ours = new Set(touched);
  const out = new Set<string>();
  for (const p of touched) if (theirs.has(p) || foldersOf(p).some((f) => theirs.has(f))) out.add(p);
  for (const p of theirs) if (foldersOf(p).some((f) => ours.has(f))) out.add(p);
  return [...out];
}

function foldersOf(p: string): string[] {
  const parts = p.split('/');
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('/'));
}
