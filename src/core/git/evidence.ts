/**
 * Evidence before destruction. Before a worktree is removed, everything in it
 * is kept somewhere that outlives it, and each part is proven before it counts:
 *
 * - the snapshot commit `refs/paddock/snapshots/<jobId>`: tracked and untracked
 *   files as on disk (binary, modes, symlinks, renames, index flags ignored; see
 *   snapshotIndex.ts), with HEAD as first parent and, as further parents, every
 *   commit that only the worktree's reflogs or own refs knew (keptCommits.ts), and
 *   the agent's index committed on HEAD when it differs from HEAD (agentIndex.ts);
 * - the patch `base → snapshot tree` (patchFile.ts), verified to reproduce the tree
 *   (files over 256 MiB, which git cannot put in a binary patch, are left out of it
 *   and named in the inventory: the snapshot commit holds them; patchTree.ts);
 * - the archive (archive.ts): what git cannot hold — ignored files, empty
 *   folders, nested repositories and submodules with their git dirs, and every
 *   repository in the worktree's private git dir that no checkout points at (a
 *   submodule's after `deinit`) — except regenerable paths (node_modules,
 *   .venv…), which are counted and dropped;
 * - the inventory (evidenceManifest.ts): every entry found by walking the file
 *   system and where it went, and the state around the files that restore puts
 *   back: what HEAD named, the index's intent-to-add entries and flags
 *   (indexFlagState.ts) and conflict stages (agentIndex.ts), the sparse checkout
 *   and a merge, rebase or bisect stopped half-way (gitDirFiles.ts), the
 *   worktree's own refs (keptCommits.ts).
 *
 * A path git will not add (snapshotIndex.ts) is archived with what git does not see; one that
 * cannot be read either is lost only with consent: anything that cannot be kept (unreadable, or
 * over the archive limit) stops the capture with a `consent-needed` error naming it, unless the
 * person agreed to drop it; then it is recorded as lost. New evidence replaces the old only once
 * all of it is written and verified.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { allSettledOrThrow, startEarly } from '../common/early';
import { failure, usageError } from '../common/errors';
import { syncDir, writeArchiveTemp } from './archive';
import { classify, DEFAULT_ARCHIVE_LIMIT, DEFAULT_REGENERABLE } from './classify';
import { manifestText, type EvidenceSummary, type LostEntry, type Manifest } from './evidenceManifest';
import { unreadableFiles, walkWorktree, type Walk, type WalkOptions } from './inventory';
import { commitsOnlyInWorktree, keeperParents } from './keptCommits';
import { autoMergeTree, keepRefObjects } from './refObjects';
import { innerWorktrees } from './innerWorktrees';
import { foreignWorktreeWords, keepForeignCommits, withForeignStaged } from './foreignWorktrees';
import { findForeignWorktrees, placeForeignBundles, summaryWorktreeWords, withOutsideWorktrees } from './foreignCapture';
import { PATCH_BLOB_LIMIT, treeForPatch } from './patchTree';
import { writeVerifiedPatch } from './patchFile';
import { isValidRefName } from './repo';
import { removeScratch, type ScratchLog } from './scratch';
import { firstLine, NO_HOOKS_ENV, runGit } from './runGit';
import { writeSnapshotRef } from './snapshotObjects';
import { stageEverything } from './snapshotIndex';
import { captureExactBytes, type IndexFile } from './exactBytes';
import { filtersOffOf, readConversionSetup } from './conversions';
import { commonDirOf, headRefOf, unbornBranchOf } from './headFiles';
import { captureIndexFlags } from './indexFlagState';
import { captureOperationBranch } from './operationBranch';
import { captureGitDirFiles } from './gitDirFiles';
import type { CaptureStamp } from './changedSince';
import { keepAgentIndex } from './agentIndex';
import { isCommitId } from './commitId';
import { printable } from '../common/printable';
import { snapshotRefFor } from '../store/agentClaims';
import { INVENTORY_FILE } from '../store/paths';
import { archiveEntry, doomedGitDirs, gitDirName, privateGitDir, privateGitDirs, type GitDirPart } from './gitDirsToKeep';
import { writeTree } from './filteredPaths';
import { makeDirs } from '../common/makeDirs';

export { privateGitDir } from './gitDirsToKeep';

export { countPatchPaths } from './patchFile';

export interface CaptureOptions {
  repo: string;
  worktree: string;
  jobId: string;
  /** Where the patch is written (the job folder's evidence/snapshot.patch); the archive and inventory go beside it. */
  patchPath: string;
  baseSha: string;
  /** The agent's branch: commits only its reflog knows are kept too. */
  branch?: string | null;
  /** Ignored paths that may be dropped (default DEFAULT_REGENERABLE). */
  regenerable?: readonly string[];
  /** Bytes the archive may hold without the person's consent (default 100 MB). */
  archiveLimitBytes?: number;
  /** The person agreed to lose what cannot be archived ("Clean Up Anyway"). */
  dropUnarchivable?: boolean;
  /** The worktree may be walked with blocking calls (a `paddock` command; see WalkOptions). */
  blockingFs?: boolean;
  /** Files larger than this stay out of the patch, kept by the snapshot commit alone (default PATCH_BLOB_LIMIT). */
  patchBlobLimitBytes?: number;
  log?: ScratchLog; // names a scratch folder the capture could not remove (bug 194)
}

export interface CapturedEvidence {
  /** refs/paddock/snapshots/<jobId>, pointing at the snapshot commit. */
  snapshotRef: string;
  /** The snapshot commit. */
  snapshotSha: string;
  /** The worktree's HEAD when captured (the snapshot commit's first parent); null on a branch with no commit yet. */
  headSha: string | null;
  /** Path of the patch written (base → snapshot tree); empty file when nothing differs. */
  patch: string;
  /** Files that differ between base and the snapshot (what the patch contains). */
  fileCount: number;
  /** Path of the archive, null when nothing needed archiving. */
  archive: string | null;
  /** Path of the inventory (evidence/inventory.json). */
  inventory: string;
  summary: EvidenceSummary;
  /** Folders the capture's walk found that cannot be listed or emptied: removal must not start under them. */
  blocked: string[];
  /** What the capture saw: removal compares the worktree with it first (changedSince.ts). */
  stamp: CaptureStamp;
}

export { SNAPSHOT_NAMESPACE } from '../store/agentClaims';
export const ARCHIVE_FILE = 'archive.tar';
export { INVENTORY_FILE };
export const GITDIRS_DIR = 'gitdirs';

/** The error code of a capture that would lose something without the person's consent. */
export const CONSENT_NEEDED = 'consent-needed';

/** Identity for snapshot commits, so capture works where user.name/email are not configured. */
export const SNAPSHOT_AUTHOR = {
  GIT_AUTHOR_NAME: 'Paddock',
  GIT_AUTHOR_EMAIL: 'paddock@localhost',
  GIT_COMMITTER_NAME: 'Paddock',
  GIT_COMMITTER_EMAIL: 'paddock@localhost',
};

/** `ls-files -s -z` lines: "<mode> <sha> <stage>\t<path>". */
function parseStage(res: { stdout: string }): IndexFile[] {
  const out: IndexFile[] = [];
  for (const line of res.stdout.split('\0')) {
    const tab = line.indexOf('\t');
    if (tab < 0) continue;
    const [mode, sha] = line.slice(0, tab).split(' ');
    out.push({ mode, sha, path: line.slice(tab + 1) });
  }
  return out;
}

const mb = (bytes: number): string => (bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`);

export async function captureEvidence(opts: CaptureOptions): Promise<CapturedEvidence> {
  const { repo, worktree, jobId, baseSha } = opts;
  const snapshotRef = snapshotRefFor(jobId);
  const ownGitDir = privateGitDir(worktree);
  const walkOptions: WalkOptions = { blocking: opts.blockingFs };
  // Steps that only read run side by side (git processes, and the walk on the thread pool or blocking in a CLI).
  const walking = startEarly(walkWorktree(worktree, walkOptions));
  // Before anything reads HEAD or the reflogs: a commit made after this is seen by the removal's check.
  const walkingGitDir = startEarly(walkWorktree(ownGitDir, walkOptions));
  // Detached, or a branch the agent switched to: restore checks out what HEAD named (undefined: unknown).
  const naming = startEarly(headRefOf(worktree).catch(() => undefined));
  const [refNameOk, probe] = await Promise.all([
    isValidRefName(repo, snapshotRef),
    // HEAD and its tree in one process (the tree tells whether the agent's index holds anything more).
    runGit(['rev-parse', 'HEAD^{commit}', 'HEAD^{tree}'], { cwd: worktree, allowFailure: true }),
  ]);
  if (!refNameOk) throw usageError(`Job id '${jobId}' cannot name a git ref.`);
  const [probedHead, probedTree] = probe.stdout.trim().split('\n');
  let headSha: string | null = probedHead;
  let headTree: string | null = probedTree;
  let unbornBranch: string | null = null;
  if (probe.code !== 0 || !isCommitId(probedHead)) {
    // An orphan branch (`checkout --orphan`) has no commit yet: the snapshot then has no HEAD parent.
    unbornBranch = await unbornBranchOf(worktree);
    if (unbornBranch === null) throw failure(`Could not capture ${worktree}: ${firstLine(probe.stderr) || 'it is not a git worktree with a commit'}.`);
    headSha = null;
    headTree = null;
  }
  // Whether git converts files here (its settings, attribute files outside the tree): read while the rest goes on.
  const conversions = startEarly(commonDirOf(ownGitDir).then((commonDir) => readConversionSetup(worktree, commonDir)));
  const keeping = startEarly(
    innerWorktrees(worktree, ownGitDir).then(async (inner) => ({ inner, ...(await commitsOnlyInWorktree(worktree, ownGitDir, headSha, opts.branch ?? null, inner)) })),
  );
  const evidenceDir = path.dirname(opts.patchPath);
  await makeDirs(evidenceDir, 0o700);
  const walk = await walking;
  const scratch = await fs.mkdtemp(path.join(tmpdir(), 'paddock-capture-'));
  const temps: string[] = [];
  const running: Promise<unknown>[] = []; // steps begun early, settled before `scratch` goes: a failure's removal raced them (ENOTEMPTY)
  // Worktrees of another repository inside this one; staged changes there are a consent reason every stop names (foreignCapture.ts).
  const foreignFound = await findForeignWorktrees(worktree, walk.nested, ownGitDir);
  try {
    const [tempIndex, realIndex] = [path.join(scratch, 'index'), path.join(ownGitDir, 'index')];
    const pinned = { GIT_WORK_TREE: worktree }; // over the agent's own core.worktree / core.bare (config.worktree), which sent git elsewhere or nowhere
    const env = { GIT_INDEX_FILE: tempIndex, ...pinned, ...SNAPSHOT_AUTHOR, ...NO_HOOKS_ENV };
    const onDisk = new Set(walk.entries.map((e) => e.path));
    const [index, refusedList, indexFlags] = await allSettledOrThrow([
      keepAgentIndex({ worktree, realIndex, scratch, headSha, headTree, env, filtersOff: conversions.then(filtersOffOf) }),
      stageEverything({ worktree, realIndex, tempIndex, env, nestedRepos: walk.nested.map((n) => n.path), unstatable: walk.unreadable.filter((p) => !onDisk.has(p) && p !== '.') }),
      // State, not content: one that cannot be read must not fail the capture of the work.
      captureIndexFlags(worktree, realIndex, (p) => onDisk.has(p)).catch(() => null),
    ] as const);
    const written = await writeTree(worktree, env, filtersOffOf(await conversions)); // no filter runs (writeTree)
    if (written.code !== 0) throw failure(`Could not capture the worktree ${worktree}: ${firstLine(written.stderr)}`);
    const tree = written.stdout.trim();
    const staged = parseStage(await runGit(['ls-files', '-s', '-z'], { cwd: worktree, env, names: true }));
    // A path git would not add is not in the snapshot as it is on disk (a tracked one keeps the entry
    // its index had): like a file git does not see, it goes into the archive, or is lost with consent.
    const refused = new Set(refusedList);
    const captured = new Set(staged.map((f) => f.path).filter((p) => !refused.has(p)));
    const byPath = new Map(walk.entries.map((e) => [e.path, e]));
    // A file the index holds but the disk does not (a sparse checkout's) has no bytes to keep exactly.
    const exactable = staged.filter((f) => captured.has(f.path) && byPath.get(f.path)?.type === 'file');
    const treeHasAttributes = walk.entries.some((e) => e.path === '.gitattributes' || e.path.endsWith('/.gitattributes'));
    const exacting = startEarly(captureExactBytes({ worktree, env, files: exactable, treeHasAttributes, setup: conversions, exactIndex: path.join(scratch, 'exact-index') }));
    running.push(exacting);
    const limit = opts.patchBlobLimitBytes ?? PATCH_BLOB_LIMIT;
    const large = walk.entries.filter((e) => e.type === 'file' && e.size > limit && captured.has(e.path)).map((e) => e.path);
    const forPatch = await treeForPatch({ worktree, baseSha, tree, tempIndex, scratch, env, large });
    const classes = classify({ entries: walk.entries, captured, regenerable: opts.regenerable ?? DEFAULT_REGENERABLE, nested: walk.nested.map((n) => n.path), refused });
    const checkouts = await doomedGitDirs(worktree, walk, ownGitDir, walkOptions);
    const gitdirs = [...checkouts, ...(await privateGitDirs(ownGitDir, await walkingGitDir, checkouts))];
    const plan = await planArchive(worktree, walk, classes.archive, gitdirs, opts);
    const { inner, tips: kept, ownRefs } = await keeping;
    const [headRef, { files: gitDirFiles, unread: gitDirFilesUnread }] = await Promise.all([naming, captureGitDirFiles(ownGitDir, await walkingGitDir)]);
    if (gitDirFilesUnread.length > 0 && !opts.dropUnarchivable) {
      const more = gitDirFilesUnread.length > 5 ? ` and ${gitDirFilesUnread.length - 5} more` : '';
      throw failure(
        `Nothing was removed: files of the worktree's git dir (a stopped merge, rebase or bisect, its sparse checkout) cannot be read: ${gitDirFilesUnread.slice(0, 5).map((p) => printable(p)).join(', ')}${more}. Fix them and retry, or clean up anyway to drop them.`,
        CONSENT_NEEDED,
      );
    }
    const operationBranch = await captureOperationBranch(worktree, gitDirFiles);
    // Their commits into bundles in the evidence folder, nothing into any repository (foreignBundle.ts); the staged stop last, as every earlier one names it.
    if (foreignFound.stop && !opts.dropUnarchivable) throw failure(`Nothing was removed: ${foreignFound.stop}.`, CONSENT_NEEDED);
    const foreignKept = await keepForeignCommits({ worktree, evidenceDir, scratch, temps, drop: opts.dropUnarchivable === true, code: CONSENT_NEEDED }, foreignFound.found);
    const foreign = foreignKept.records;
    const exact = await exacting;
    const message = `paddock snapshot of ${jobId}\n\nWorktree: ${worktree}\nCaptured: ${new Date().toISOString()}\n${
      kept.length ? `Also keeps ${kept.length} line(s) of commits known only to the worktree's reflogs and refs.\n` : ''
    }`;
    // The agent's index, when it holds what neither HEAD nor the files do, is one more parent; the exact
    // bytes' commit goes last. The first parent is the worktree's HEAD (none on an orphan branch).
    const refObjects = await keepRefObjects(worktree, ownRefs, env, await autoMergeTree(worktree, gitDirFiles));
    const parents = [
      ...(headSha ? [headSha] : []),
      ...(await keeperParents(worktree, kept, env)),
      ...(refObjects.keeper ? [refObjects.keeper] : []),
      ...(index ? [index.commit] : []),
      ...(exact ? [exact.commit] : []),
    ].flatMap((sha) => ['-p', sha]);
    const archivePath = path.join(evidenceDir, ARCHIVE_FILE);
    // The snapshot commit, the verified patch and the archives come from the same tree and files, each
    // into its own temporary: written side by side, each tracked for removal as soon as it exists.
    const tracked = (temp: string) => {
      temps.push(temp);
      return temp;
    };
    const [snapshotSha, patch, archiveTemp, gitdirTemps] = await allSettledOrThrow([
      runGit(['commit-tree', tree, ...parents], { cwd: worktree, env, input: message }).then((r) => r.stdout.trim()),
      writeVerifiedPatch(repo, baseSha, forPatch.tree, opts.patchPath, scratch).then((p) => ({ ...p, temp: tracked(p.temp) })),
      plan.archive.length > 0 ? writeArchiveTemp(worktree, plan.archive.map((p) => archiveEntry(byPath.get(p)!)), archivePath).then(tracked) : null,
      allSettledOrThrow(
        plan.gitdirs.map(async (part, i) => {
          const file = path.join(evidenceDir, GITDIRS_DIR, `${i}.tar`);
          return { part, file, temp: tracked(await writeArchiveTemp(part.gitdir, part.entries, file)) };
        }),
      ),
    ] as const);
    const privateKept = gitdirTemps.filter((g) => g.part.private);
    const summary: EvidenceSummary = {
      captured: classes.captured,
      archived: plan.archived,
      emptyDirs: classes.emptyDirs,
      regenerable: classes.regenerable,
      lost: plan.lost.slice(0, 200),
      lostCount: plan.lost.length,
      nested: walk.nested.map((n) => n.path).slice(0, 200),
      ...(privateKept.length > 0 ? { keptGitDirs: privateKept.map((g) => g.part.path).slice(0, 200) } : {}),
      keptCommits: kept.length,
      ...(foreign.length + foreignFound.outsideWords.length > 0 ? { foreignWorktrees: summaryWorktreeWords([...foreignWorktreeWords(foreign, evidenceDir), ...foreignFound.outsideWords]) } : {}),
      ...(plan.archive.some((p) => refused.has(p)) ? { unstorable: plan.archive.filter((p) => refused.has(p)).length } : {}),
    };
    const archived = new Set(plan.archive);
    const manifest: Manifest = {
      version: 1,
      worktree,
      capturedAt: new Date().toISOString(),
      snapshotSha,
      headSha,
      branch: opts.branch ?? null,
      rootMode: walk.rootMode, // JSON leaves it out when unknown
      ...(headRef !== undefined ? { headRef } : {}),
      ...(unbornBranch !== null ? { unbornBranch } : {}),
      ...(index ? { index: { tree: index.tree, commit: index.commit, unmerged: index.unmerged, ...(index.stages.length > 0 ? { stages: index.stages } : {}) } } : {}),
      ...(forPatch.omitted.length > 0 ? { patchOmits: forPatch.omitted } : {}),
      ...(foreign.length > 0 ? { foreign } : {}), ...foreignFound.outsideKept,
      ...(inner.length > 0 ? { linked: inner.map((w) => ({ path: w.path, head: w.head, branch: w.branch })) } : {}),
      summary,
      archive: archiveTemp ? ARCHIVE_FILE : null,
      ...(exact ? { exact } : {}),
      gitdirs: gitdirTemps.filter((g) => !g.part.private).map((g) => ({ path: g.part.path, archive: path.relative(evidenceDir, g.file) })),
      ...(privateKept.length > 0 ? { privateGitDirs: privateKept.map((g) => ({ path: g.part.path, archive: path.relative(evidenceDir, g.file) })) } : {}),
      ...(indexFlags ? { indexFlags } : {}),
      gitDirFiles,
      ...(gitDirFilesUnread.length > 0 ? { gitDirFilesUnread } : {}),
      ...(operationBranch ? { operationBranch } : {}),
      ...(refObjects.refs.length > 0 ? { worktreeRefs: refObjects.refs } : {}),
      entries: walk.entries.filter((e) => captured.has(e.path) || archived.has(e.path)),
    };
    const inventoryPath = path.join(evidenceDir, INVENTORY_FILE);
    const inventoryTemp = `${inventoryPath}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    await fs.writeFile(inventoryTemp, manifestText(manifest), { mode: 0o600, flush: true });
    temps.push(inventoryTemp);
    // Everything is written and verified: only now does the new evidence replace the old (its new objects then packed where no prune deletes them).
    await writeSnapshotRef({ repo, commonDir: await commonDirOf(ownGitDir), ref: snapshotRef, sha: snapshotSha, before: headSha ? [headSha] : [] });
    if (archiveTemp) await fs.rename(archiveTemp, archivePath);
    else await fs.rm(archivePath, { force: true });
    // Earlier git dir archives go (their temporaries beside them are the new ones).
    const gitdirsDir = path.join(evidenceDir, GITDIRS_DIR);
    for (const name of await fs.readdir(gitdirsDir).catch(() => [] as string[])) {
      if (name.endsWith('.tar')) await fs.rm(path.join(gitdirsDir, name), { force: true });
    }
    for (const g of gitdirTemps) await fs.rename(g.temp, g.file);
    await placeForeignBundles(evidenceDir, foreignKept.temps);
    await fs.rename(patch.temp, opts.patchPath);
    await fs.rename(inventoryTemp, inventoryPath);
    temps.length = 0;
    // The renames are durable only once their directory is: the evidence must survive a crash before any removal.
    await syncDir(evidenceDir);
    return {
      snapshotRef,
      snapshotSha,
      headSha,
      patch: opts.patchPath,
      fileCount: patch.count + forPatch.omitted.length,
      archive: archiveTemp ? archivePath : null,
      inventory: inventoryPath,
      summary,
      blocked: [...walk.undeletable, ...walk.unreadable],
      stamp: { entries: walk.entries, gitDir: ownGitDir, gitDirEntries: (await walkingGitDir).entries },
    };
  } catch (err) {
    throw withOutsideWorktrees(withForeignStaged(err, foreignFound.stop, CONSENT_NEEDED), foreignFound.outside, CONSENT_NEEDED);
  } finally {
    await removeScratch(scratch, { running, temps, log: opts.log }); // never in place of the capture's own error (bug 188)
  }
}

interface ArchivePlan {
  archive: string[];
  archived: { files: number; bytes: number };
  gitdirs: GitDirPart[];
  lost: LostEntry[];
}

/**
 * What goes into the archive: everything classified archivable, unless it
 * cannot be read or the whole is over the limit — then the person decides.
 * With consent, the smallest files are kept first and the rest recorded lost.
 */
async function planArchive(worktree: string, walk: Walk, archive: string[], gitdirs: GitDirPart[], opts: CaptureOptions): Promise<ArchivePlan> {
  const limit = opts.archiveLimitBytes ?? DEFAULT_ARCHIVE_LIMIT;
  const byPath = new Map(walk.entries.map((e) => [e.path, e]));
  const files = archive.filter((p) => byPath.get(p)!.type !== 'dir');
  const unreadable = new Set([...walk.unreadable, ...(await unreadableFiles(worktree, files.filter((p) => byPath.get(p)!.type === 'file')))]);
  const lost: LostEntry[] = [];
  for (const p of unreadable) lost.push({ path: p, bytes: byPath.get(p)?.size ?? 0, why: 'unreadable' });
  for (const g of gitdirs) if (g.unreadable.length > 0) lost.push({ path: gitDirName(g), bytes: g.bytes, why: 'unreadable' });

  // Candidates by size, smallest first: with consent, as many as fit are kept.
  type Item = { path: string; bytes: number; gitdir?: GitDirPart };
  const items: Item[] = [
    ...files.filter((p) => !unreadable.has(p)).map((p) => ({ path: p, bytes: byPath.get(p)!.size })),
    ...gitdirs.filter((g) => g.unreadable.length === 0).map((g) => ({ path: gitDirName(g), bytes: g.bytes, gitdir: g })),
  ].sort((a, b) => a.bytes - b.bytes);
  const total = items.reduce((n, i) => n + i.bytes, 0);
  const keptItems = new Set<Item>();
  let used = 0;
  for (const item of items) {
    if (used + item.bytes > limit) {
      lost.push({ path: item.path, bytes: item.bytes, why: 'too-big' });
      continue;
    }
    used += item.bytes;
    keptItems.add(item);
  }
  if (lost.length > 0 && !opts.dropUnarchivable) {
    const shown = [...lost].sort((a, b) => b.bytes - a.bytes).slice(0, 5);
    const names = shown.map((l) => `${printable(l.path)} (${l.why === 'unreadable' ? 'cannot be read' : mb(l.bytes)})`).join(', ');
    const more = lost.length > shown.length ? ` and ${lost.length - shown.length} more` : '';
    const why = total > limit ? `the files git does not hold come to ${mb(total)}, over the ${mb(limit)} archive limit` : 'some files cannot be read';
    throw failure(`Nothing was removed: ${why}: ${names}${more}. Make room or fix them and retry, or clean up anyway to drop them.`, CONSENT_NEEDED);
  }
  const lostPaths = new Set(lost.map((l) => l.path));
  const keptFiles = archive.filter((p) => !lostPaths.has(p));
  return {
    archive: keptFiles,
    archived: { files: [...keptItems].filter((i) => !i.gitdir).length, bytes: used },
    gitdirs: [...keptItems].flatMap((i) => (i.gitdir ? [i.gitdir] : [])),
    lost,
  };
}
