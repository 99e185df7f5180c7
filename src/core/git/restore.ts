/**
 * `paddock restore`: re-creates an agent's worktree from its evidence alone —
 * the snapshot commit (tracked and untracked files), the archive (ignored
 * files, empty folders, nested repositories), the submodules' git dirs (back
 * into the new worktree's git dir, with a checkout or not: reabsorbGitDirs.ts), and
 * the inventory's modes and times — as a linked worktree of the repository on
 * the branch HEAD named at cleanup (or detached at its HEAD when the agent left
 * it detached, or the branch moved on or is checked out elsewhere), with the
 * index's intent-to-add entries, flags and conflict stages, the sparse
 * checkout, a merge, rebase or bisect stopped half-way (its state files and
 * the worktree's own refs) and the hard links inside the worktree as they were. What cannot be put back as it was is
 * said (`problems`, `branchNote`), never left to differ silently.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { pathExists } from '../common/paths';
import { failure, usageError } from '../common/errors';
import { extractArchive } from './archive';
import { INVENTORY_FILE, privateGitDir } from './evidence';
import { readManifest, type Manifest } from './evidenceManifest';
import { firstLine, GIT_BULK_TIMEOUT_MS, NO_HOOKS_ENV, runGit } from './runGit';
import { filtersOff } from './filteredPaths';
import { EXACT_CONFIG } from './snapshotIndex';
import { restoreBlobBytes, restoreExactBytes } from './exactBytes';
import { fsPath } from './pathBytes';
import { relinkInnerWorktrees } from './innerRelink';
import { keepOutOfCheckout, restoreIndexFlags } from './indexFlagState';
import { restoreGitDirFiles, unreadGitDirFiles } from './gitDirFiles';
import { relinkHardLinks } from './hardLinks';
import { restoreConflictStages } from './conflictStages';
import { restoreWorktreeRefs } from './worktreeRefs';
import { restoreOperationBranch } from './operationBranch';
import { foreignWorktreeNotes } from './foreignRestore';
import { restoreUpdateRefsBranches, updateRefsBranches } from './updateRefs';
import { forgetWorktreeRegistration } from './worktreeRegistration';
import { makeDirs } from '../common/makeDirs';
import { reabsorbGitDirs } from './reabsorbGitDirs';
import { relinkOutsideWorktrees } from './outsideWorktrees';
import { relinkNestedFound } from './nestedLinks';

export interface RestoreOptions {
  repo: string;
  /** refs/paddock/snapshots/<id>. */
  snapshotRef: string;
  /** The evidence folder of the job (holds inventory.json, archive.tar, gitdirs/). */
  evidenceDir: string;
  /** Where to re-create the worktree; must not exist yet (or be an empty folder). */
  target: string;
  /** The agent's branch: checked out when it still points at the captured HEAD, re-created when gone. */
  branch: string | null;
  /**
   * Whether the job's record says its cleanup deleted that branch: only then does a stopped rebase's
   * or bisect's branch come back at its old tip (operationBranch.ts, updateRefs.ts). Any other branch
   * gone since was deleted by the person, and stays deleted.
   */
  branchDeletedByCleanup?: boolean;
  /** Where a scratch folder the exact-bytes step could not remove is named (bug 194). */
  log?: (message: string) => void;
}

export interface RestoreResult {
  path: string;
  /** How the branch was handled, in words. */
  branchNote: string;
  files: number;
  archived: number;
  /** Paths recorded as dropped at cleanup (regenerable or lost with consent): not restored. */
  notRestored: string[];
  /** What could not be put back as it was (a linked worktree inside that git could not link again, a hard link, an index flag, the sparse checkout, the job branch left behind), in sentences. */
  problems: string[];
}


async function assertFreeTarget(target: string): Promise<void> {
  if (!(await pathExists(target))) return;
  const names = await fs.readdir(target).catch(() => null);
  if (names === null || names.length > 0) throw usageError(`${target} already exists; choose another folder with --to.`);
  await fs.rmdir(target);
}

async function refSha(repo: string, rev: string): Promise<string | null> {
  const res = await runGit(['rev-parse', '--verify', '--quiet', '--end-of-options', rev], { cwd: repo, allowFailure: true });
  return res.code === 0 ? res.stdout.trim() : null;
}

/** `detached`: the agent left HEAD detached (said so, as it is no fallback). */
async function addCheckout(repo: string, target: string, branch: string | null, headSha: string, detached: boolean, made: { folder: boolean }): Promise<string> {
  let args: string[];
  let note: string;
  const tip = branch ? await refSha(repo, `refs/heads/${branch}^{commit}`) : null;
  if (branch && tip === null) {
    args = ['-b', branch, '--', target, headSha];
    note = `branch ${branch} re-created at ${headSha.slice(0, 12)}`;
  } else if (branch && tip === headSha) {
    args = ['--', target, branch];
    note = `on branch ${branch}`;
  } else {
    args = ['--detach', '--', target, headSha];
    note = branch ? `detached at ${headSha.slice(0, 12)} (branch ${branch} has moved on)` : `detached at ${headSha.slice(0, 12)}${detached ? ', as the agent left it' : ''}`;
  }
  let res = await runGit(['worktree', 'add', '--no-checkout', ...args], { cwd: repo, allowFailure: true, pastSiblingAdds: true });
  if (res.code !== 0 && branch && /already (checked out|used by worktree)/.test(res.stderr)) {
    res = await runGit(['worktree', 'add', '--no-checkout', '--detach', '--', target, headSha], { cwd: repo, allowFailure: true, pastSiblingAdds: true });
    note = `detached at ${headSha.slice(0, 12)} (branch ${branch} is checked out elsewhere)`;
  }
  if (res.code !== 0) throw failure(`Could not create the worktree ${target}: ${firstLine(res.stderr) || `exit code ${res.code}`}.`);
  made.folder = true;
  return note;
}

/** A worktree on a branch with no commit yet, as the agent's was (`checkout --orphan`). */
async function addUnborn(repo: string, target: string, branch: string, snapshotSha: string, made: { folder: boolean }): Promise<string> {
  const res = await runGit(['worktree', 'add', '--no-checkout', '--detach', '--', target, snapshotSha], { cwd: repo, allowFailure: true, pastSiblingAdds: true });
  if (res.code !== 0) throw failure(`Could not create the worktree ${target}: ${firstLine(res.stderr) || `exit code ${res.code}`}.`);
  made.folder = true;
  if ((await refSha(repo, `refs/heads/${branch}`)) !== null) return `detached at the snapshot (its branch ${branch} had no commit; one of that name exists now)`;
  await runGit(['symbolic-ref', 'HEAD', `refs/heads/${branch}`], { cwd: target });
  return `on branch ${branch}, which has no commit yet`;
}

/** Modes and times as they were at capture: git knows only the executable bit, the archive only its own entries. */
async function applyInventory(target: string, manifest: Manifest): Promise<void> {
  // Files first, then folders deepest first, so a read-only folder is made read-only last.
  const files = manifest.entries.filter((e) => e.type === 'file');
  const dirs = manifest.entries.filter((e) => e.type === 'dir').reverse();
  for (const e of [...files, ...dirs]) {
    const p = fsPath(path.join(target, e.path));
    try {
      // Only onto an entry of the same type: a submodule's `.git` file git would not absorb again stays a
      // folder (its git dir), and a file's 0644 on it would lock its owner out; chmod through a symlink would reach outside.
      const now = await fs.lstat(p);
      if (e.type === 'dir' ? !now.isDirectory() : !now.isFile()) continue;
      await fs.chmod(p, e.mode);
      const when = new Date(e.mtimeMs);
      await fs.utimes(p, when, when);
    } catch {
      // An entry that is not there was dropped or is inside a restored nested checkout that moved it.
    }
  }
}

/**
 * Repositories that lived in the worktree's private git dir with no checkout (a submodule's after
 * `deinit` or `git rm`) go back to the same place in the new worktree's, where `git submodule
 * update --init` finds the submodule's git dir again, with the commits made in it.
 */
async function restorePrivateGitDirs(target: string, evidenceDir: string, parts: readonly { path: string; archive: string }[]): Promise<void> {
  if (parts.length === 0) return;
  const ownGitDir = privateGitDir(target);
  for (const g of parts) {
    const dest = path.resolve(ownGitDir, g.path);
    const rel = path.relative(ownGitDir, dest);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) throw failure(`The evidence inventory names a git dir outside the worktree's own: ${g.path}.`);
    await makeDirs(dest);
    await extractArchive(path.join(evidenceDir, g.archive), dest);
    // No checkout points at it, as `deinit` leaves it (`git rm` leaves the old one's path, wrong here);
    // `git submodule update --init` sets it again.
    await runGit(['config', '--file', path.join(dest, 'config'), '--unset', 'core.worktree'], { cwd: target, allowFailure: true });
  }
}

/**
 * The branch to check out: the one HEAD named at capture (the agent may have switched from its own),
 * none when it was detached; the job's branch for evidence from before HEAD's name was recorded.
 */
function branchToCheckOut(manifest: Manifest | null, jobBranch: string | null): { branch: string | null; detached: boolean } {
  const ref = manifest?.headRef;
  if (ref === undefined) return { branch: jobBranch, detached: false };
  if (ref === null || !ref.startsWith('refs/heads/')) return { branch: null, detached: true };
  return { branch: ref.slice('refs/heads/'.length), detached: false };
}

/**
 * The agent had left its own branch (a detached HEAD, another branch) and the cleanup deleted it:
 * restoring HEAD as it was would leave the agent without the branch that merge, pull request and
 * update land from. Its branch is re-created at HEAD's commit and checked out instead, and said so.
 */
async function jobBranchGone(repo: string, jobBranch: string | null, checkout: { branch: string | null; detached: boolean }): Promise<string | null> {
  if (!jobBranch || checkout.branch === jobBranch || (await refSha(repo, `refs/heads/${jobBranch}`)) !== null) return null;
  const where = checkout.branch ? `on branch ${checkout.branch}` : 'detached';
  return `HEAD was ${where}; it is on the agent's branch ${jobBranch} now, re-created at that commit (the cleanup had deleted it), so the agent can still be landed`;
}

export async function restoreWorktree(opts: RestoreOptions): Promise<RestoreResult> {
  const target = path.resolve(opts.target);
  // An empty folder named with --to is the person's: a failed restore leaves it as it was (its mode too).
  const emptyFolderMode = (await pathExists(target)) ? (await fs.stat(target)).mode & 0o7777 : null;
  await assertFreeTarget(target);
  const refTip = await refSha(opts.repo, `${opts.snapshotRef}^{commit}`);
  if (!refTip) throw failure(`The snapshot ${opts.snapshotRef} is not in ${opts.repo}; there is nothing to restore from.`);
  const inventory = path.join(opts.evidenceDir, INVENTORY_FILE);
  const manifest = (await pathExists(inventory)) ? await readManifest(inventory) : null;
  let snapshotSha = refTip;
  if (manifest && manifest.snapshotSha !== refTip) {
    // A capture cut short between moving the ref and renaming its inventory: the inventory's own
    // snapshot (kept by the ref's reflog) is the one its archive belongs to.
    const own = await refSha(opts.repo, `${manifest.snapshotSha}^{commit}`);
    if (!own) {
      throw failure(`The evidence inventory describes snapshot ${manifest.snapshotSha.slice(0, 12)}, which is not in ${opts.repo}; ${opts.snapshotRef} is ${refTip.slice(0, 12)}.`);
    }
    snapshotSha = own;
  }
  const unborn = manifest?.unbornBranch;
  const headSha = unborn !== undefined ? null : (manifest?.headSha ?? (await refSha(opts.repo, `${snapshotSha}^1`)));
  if (!headSha && unborn === undefined) throw failure(`The snapshot ${opts.snapshotRef} has no parent commit to restore the worktree's HEAD from.`);

  await makeDirs(path.dirname(target));
  let checkout = branchToCheckOut(manifest, opts.branch);
  // The branches re-created below, each at the commit it is made at, are undone if the restore fails:
  // those absent now that the restore would make (an operation's, one --update-refs moves, the checkout's).
  const created = await absentBranches(opts.repo, [
    ...(manifest?.operationBranch ? [{ ref: `refs/heads/${manifest.operationBranch.name}`, sha: manifest.operationBranch.tip }] : []),
    ...updateRefsBranches(manifest?.gitDirFiles).map((b) => ({ ref: b.ref, sha: b.old })),
  ]);
  // A rebase or bisect stopped half-way expects its branch at its old tip and HEAD detached: that
  // branch, deleted by the cleanup, comes back first, so it is not re-created at HEAD's commit below.
  const deleted = opts.branchDeletedByCleanup === true ? opts.branch : null;
  const operationBranchNote = await restoreOperationBranch(opts.repo, manifest?.gitDirFiles, manifest?.operationBranch, deleted);
  // So do the branches a stopped `rebase --update-refs` moves when it ends (updateRefs.ts).
  const updateRefsNotes = await restoreUpdateRefsBranches(opts.repo, manifest?.gitDirFiles, deleted);
  const branchGone = headSha ? await jobBranchGone(opts.repo, opts.branch, checkout) : null;
  if (branchGone) checkout = { branch: opts.branch, detached: false };
  if (checkout.branch && headSha) created.push(...(await absentBranches(opts.repo, [{ ref: `refs/heads/${checkout.branch}`, sha: headSha }])));
  const made = { folder: false };
  try {
    const branchNote = headSha ? await addCheckout(opts.repo, target, checkout.branch, headSha, checkout.detached, made) : await addUnborn(opts.repo, target, unborn!, snapshotSha, made);
    // A private worktree's files (.env, keys) are written into the folder git made with its own mode
    // (0755): closed to others before the first write, given its exact mode once all are written.
    if (manifest?.rootMode !== undefined) await fs.chmod(fsPath(target), (manifest.rootMode & 0o7700) | 0o700).catch(() => undefined);
    const result = await fillWorktree(opts, target, manifest, { snapshotSha, headSha, branchNote, notes: [operationBranchNote, ...updateRefsNotes, branchGone] });
    // Last, as a read-only root would refuse the writes above.
    result.problems.push(...(await restoreRootMode(target, manifest?.rootMode)));
    return result;
  } catch (err) {
    // Everything in the folder came from the evidence, which is untouched: a restore cut short (a
    // smudge filter git cannot run, a full disk) leaves nothing half-made at the agent's path that
    // would pass for its worktree and refuse the next restore as "already exists".
    const left = await discardPartialRestore(opts.repo, target, made.folder, emptyFolderMode, created);
    const why = err instanceof Error ? err.message.replace(/\.$/, '') : String(err);
    // Before git made the folder, its own message ("Could not create the worktree …") says where.
    const said = made.folder ? `Could not restore the worktree ${target}: ${why}` : why;
    throw failure(`${said}. ${left ?? 'Nothing was left there'}; the evidence is unchanged, so the restore can be run again.`);
  }
}

/**
 * The worktree folder's own mode, as the agent left it (a 0700 worktree came back 0755, readable by
 * all). Also in an empty folder given with --to: git made it again in its place, with its own mode.
 */
async function restoreRootMode(target: string, mode: number | undefined): Promise<string[]> {
  if (mode === undefined) return [];
  return fs.chmod(fsPath(target), mode).then(
    () => [],
    () => [`${target} could not be given the mode ${mode.toString(8).padStart(4, '0')} the agent's worktree folder had.`],
  );
}

type MadeBranch = { ref: string; sha: string };

/** Of `branches`, those that do not exist now. */
async function absentBranches(repo: string, branches: readonly MadeBranch[]): Promise<MadeBranch[]> {
  const absent = await Promise.all(branches.map(async (b) => ((await refSha(repo, b.ref)) === null ? b : null)));
  return absent.filter((b): b is MadeBranch => b !== null);
}

/**
 * Removes the folder a failed restore made, its registration and the branches it re-created (each
 * only at the commit it was made at, which the snapshot keeps); says what it could not remove.
 * `folderMade`: git had made the worktree (before that, a folder there is not the restore's).
 */
async function discardPartialRestore(repo: string, target: string, folderMade: boolean, emptyFolderMode: number | null, created: readonly MadeBranch[]): Promise<string | null> {
  if (folderMade) {
    try {
      await fs.rm(fsPath(target), { recursive: true, force: true });
    } catch {
      return `The half-restored folder ${target} could not be removed`;
    }
    await forgetWorktreeRegistration(repo, target).catch(() => false);
  }
  for (const b of created) await runGit(['update-ref', '-d', b.ref, b.sha], { cwd: repo, allowFailure: true });
  if (emptyFolderMode !== null && !(await pathExists(target))) {
    await fs.mkdir(target).then(() => fs.chmod(target, emptyFolderMode)).catch(() => undefined);
  }
  return null;
}

interface Checkout {
  snapshotSha: string;
  headSha: string | null;
  branchNote: string;
  /** Sentences about the branch said before the files (an operation's branch, the job's re-created). */
  notes: (string | null)[];
}

async function fillWorktree(opts: RestoreOptions, target: string, manifest: Manifest | null, c: Checkout): Promise<RestoreResult> {
  const { snapshotSha, headSha, branchNote } = c;
  // The snapshot's tree into the files, the agent's index (HEAD's when it had nothing staged) into
  // the index: its uncommitted work comes back as uncommitted changes, staged or not, its untracked
  // files as untracked files.
  // Restore's own writes of the new worktree's index run none of the person's hooks: a
  // post-index-change hook that hangs held each of them to its timeout, and every restore failed.
  const own = { cwd: target, env: NO_HOOKS_ENV };
  // No filter driver runs either (a smudge filter that hangs held the checkout 600 s), nor a line-end
  // conversion the settings make here (core.autocrlf or core.eol set since, or only for this path by an
  // includeIf wrote other bytes than the agent had): the capture kept every file git converted there
  // byte for byte (exactBytes.ts), and each other file is its blob. Not for evidence with no inventory,
  // which has no exact bytes.
  const asCaptured = manifest ? [...(await filtersOff(target, NO_HOOKS_ENV)), '-c', 'core.autocrlf=false', '-c', 'core.eol=lf'] : [];
  await runGit(['read-tree', snapshotSha], own);
  // What the agent's sparse checkout had left out of its files stays out (checkout-index skips it).
  const sparseProblems = await keepOutOfCheckout(target, manifest?.indexFlags);
  // With filters on, a smudge filter that waits on a slow service is not judged stalled (stallMs 0): its bound is the judge.
  await runGit([...EXACT_CONFIG, ...asCaptured, 'checkout-index', '--all', '--force'], { ...own, timeoutMs: GIT_BULK_TIMEOUT_MS, ...(manifest ? {} : { stallMs: 0 }) });
  // The checkout ran each file through the conversions no setting here turns off (attributes from
  // core.attributesFile, which an includeIf may set for this path alone, the global or system file,
  // info/attributes, attr.tree): each file that came out other than its blob is written as its blob,
  // which is what the agent had on disk unless the capture kept its exact bytes; those come back last.
  if (manifest) await restoreBlobBytes(target, opts.log);
  if (manifest?.exact) await restoreExactBytes(target, manifest.exact.commit, opts.log);
  await runGit(['read-tree', manifest?.index?.tree ?? headSha ?? '--empty'], own);

  let archived = 0;
  if (manifest?.archive) {
    await extractArchive(path.join(opts.evidenceDir, manifest.archive), target);
    archived = manifest.summary.archived.files;
  }
  for (const g of manifest?.gitdirs ?? []) {
    const dotGit = path.join(target, g.path, '.git');
    await fs.rm(dotGit, { recursive: true, force: true });
    await makeDirs(dotGit);
    await extractArchive(path.join(opts.evidenceDir, g.archive), dotGit);
    // It was a submodule's git dir inside the superproject's: as its own .git it must not point back there.
    await runGit(['config', '--file', path.join(dotGit, 'config'), '--unset', 'core.worktree'], { cwd: target, allowFailure: true });
  }
  await restorePrivateGitDirs(target, opts.evidenceDir, manifest?.privateGitDirs ?? []);
  // Back into the new worktree's git dir, where the agent's git had them (before the inventory's modes and times).
  const absorbProblems = await reabsorbGitDirs(target, (manifest?.gitdirs ?? []).map((g) => g.path));
  // Links inside the agent's worktree that git wrote as absolute paths, named its old place (nestedLinks.ts).
  // Found in the restored tree itself: the manifest's list of nested repositories is cut at 200.
  const nestedProblems = manifest ? await relinkNestedFound(target, manifest.worktree) : [];
  const problems = [...sparseProblems, ...absorbProblems, ...nestedProblems, ...(await relinkInnerWorktrees(opts.repo, target, manifest?.linked ?? []))];
  problems.push(...(await foreignWorktreeNotes(target, manifest?.worktree ?? target, opts.evidenceDir, manifest?.foreign)));
  // A nested repository's linked worktrees outside the agent's: their `.git` files named its old place.
  if (manifest?.outside) problems.push(...(await relinkOutsideWorktrees(target, manifest.outside, manifest.outsideAll === true)));
  for (const note of c.notes) if (note) problems.push(note);
  if (manifest) problems.push(...(await relinkHardLinks(target, manifest.entries)));
  if (manifest) await applyInventory(target, manifest);
  problems.push(...(await restoreIndexFlags(target, manifest?.indexFlags)));
  // A merge, rebase, cherry-pick or bisect stopped half-way goes on from where the agent left it.
  problems.push(...(await restoreConflictStages(target, manifest?.index?.stages)));
  problems.push(...(await restoreWorktreeRefs(target, manifest?.worktreeRefs)));
  problems.push(...(await restoreGitDirFiles(privateGitDir(target), manifest?.gitDirFiles)));
  problems.push(...unreadGitDirFiles(manifest?.gitDirFilesUnread));
  // Its stat data, with the same settings: a refresh hashes each tracked file whose stat it lacks (all
  // of them, after read-tree) through its clean filter, and one that hangs failed every restore.
  await runGit([...asCaptured, 'update-index', '-q', '--refresh'], { ...own, allowFailure: true });
  const files = manifest ? manifest.summary.captured.files : Number((await runGit(['ls-files', '-z'], { cwd: target })).stdout.split('\0').length - 1);
  const notRestored = manifest ? [...manifest.summary.regenerable.roots, ...manifest.summary.lost.map((l) => l.path)] : [];
  return { path: target, branchNote, files, archived, notRestored, problems };
}
