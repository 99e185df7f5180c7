/**
 * What forgetting a cleaned agent deletes that is its work. Cleanup keeps the agent's work in two
 * places: the snapshot ref in the repository (forget keeps it) and the archives in the job folder
 * (evidence/archive.tar, evidence/gitdirs/*.tar, evidence/foreign/*.bundle), which hold what git does not — ignored files,
 * files git would not add, nested repositories and submodules with their git dirs, repositories of
 * the worktree's private git dir (a deinit'ed submodule's), the commits of worktrees of another
 * repository made inside the agent's (foreignBundle.ts) — and for those the only copy. Forget
 * deletes the job folder, so it first moves them to `kept/<id>`, unless the person asked for them to
 * go: one description, read here, is what the CLI, prune's plan and the window's confirmation say.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { printable } from '../common/printable';
import { ARCHIVE_FILE, GITDIRS_DIR, INVENTORY_FILE, readManifest, type EvidenceSummary } from '../git';
import { FOREIGN_DIR } from '../git/foreignWorktrees';
import type { JobRecord, JobStore } from '../store';
import { formatBytes } from '../usage/usageText';

export interface ArchivedWork {
  /** Bytes of the archives on disk: what forgetting frees, and loses. */
  bytes: number;
  /** Files (and symlinks) in the archive; null when its inventory cannot be read (then its contents are unknown). */
  files: number | null;
  /** Nested repositories and submodules, archived with their git dirs. */
  nested: string[];
  /** Worktrees of another repository: their files archived, their git dir that repository's, their commits in the bundles. */
  foreign: string[];
  /** Repositories archived from the worktree's private git dir that no checkout pointed at. */
  keptGitDirs: string[];
  /** Bundles of commits made in worktrees of another repository inside the agent's (evidence/foreign/). */
  foreignBundles: number;
}

/** A name list shown in one sentence: the first few, then how many more. */
const NAMES_SHOWN = 3;

async function tarSizes(dir: string, names: readonly string[]): Promise<number[]> {
  const sizes: number[] = [];
  for (const name of names) {
    const stat = await fs.lstat(path.join(dir, name)).catch(() => null);
    if (stat?.isFile()) sizes.push(stat.size);
  }
  return sizes;
}

/**
 * The summary of what the archives hold: the inventory beside them, else the record's copy of it;
 * and which nested checkouts were worktrees of another repository (only the inventory says).
 */
async function summaryOf(evidenceDir: string, job: JobRecord): Promise<{ summary: EvidenceSummary; foreign: string[] } | null> {
  const manifest = await readManifest(path.join(evidenceDir, INVENTORY_FILE)).catch(() => null);
  const summary = manifest?.summary ?? job.evidence?.summary ?? null;
  return summary && { summary, foreign: (manifest?.foreign ?? []).map((f) => f.path) };
}

/**
 * The work in the agent's archives, or null when forgetting it loses none: no archive, or one
 * holding only empty folders (nothing of the agent's is in them). Read from the job folder itself,
 * not the record alone, so an archive the record does not name is not missed.
 */
export function archivedWork(store: JobStore, job: JobRecord): Promise<ArchivedWork | null> {
  return archivedWorkIn(path.dirname(store.patchPath(job.id)), job);
}

/** {@link archivedWork} of the evidence folder `evidenceDir` (a job folder's, or one kept after a forget). */
export async function archivedWorkIn(evidenceDir: string, job: JobRecord): Promise<ArchivedWork | null> {
  const gitdirNames = (await fs.readdir(path.join(evidenceDir, GITDIRS_DIR)).catch(() => [] as string[])).filter((n) => n.endsWith('.tar'));
  const bundleNames = (await fs.readdir(path.join(evidenceDir, FOREIGN_DIR)).catch(() => [] as string[])).filter((n) => n.endsWith('.bundle'));
  const [archiveSizes, gitdirSizes, bundleSizes] = await Promise.all([
    tarSizes(evidenceDir, [ARCHIVE_FILE]),
    tarSizes(path.join(evidenceDir, GITDIRS_DIR), gitdirNames),
    tarSizes(path.join(evidenceDir, FOREIGN_DIR), bundleNames),
  ]);
  if (archiveSizes.length === 0 && gitdirSizes.length === 0 && bundleSizes.length === 0) return null;
  const bytes = [...archiveSizes, ...gitdirSizes, ...bundleSizes].reduce((n, s) => n + s, 0);
  const read = await summaryOf(evidenceDir, job);
  if (read === null) return { bytes, files: null, nested: [], foreign: [], keptGitDirs: [], foreignBundles: bundleSizes.length };
  const { summary, foreign } = read;
  // A worktree of another repository is a nested checkout too, but its git dir is not archived with it.
  const nested = summary.nested.filter((n) => !foreign.includes(n));
  const work: ArchivedWork = { bytes, files: summary.archived.files, nested, foreign, keptGitDirs: summary.keptGitDirs ?? [], foreignBundles: bundleSizes.length };
  const holdsWork = work.files! > 0 || work.nested.length > 0 || work.foreign.length > 0 || work.keptGitDirs.length > 0 || gitdirSizes.length > 0 || bundleSizes.length > 0;
  return holdsWork ? work : null;
}

function names(list: readonly string[]): string {
  const shown = list.slice(0, NAMES_SHOWN).map((n) => printable(n));
  return list.length > NAMES_SHOWN ? `${shown.join(', ')} and ${list.length - NAMES_SHOWN} more` : shown.join(', ');
}

/**
 * What the archives hold, in words: "an archive of 24 KB (3 files): ignored files or files git would
 * not add, and the nested repository vendor/lib whole with its git dir, whose commits may exist
 * nowhere else".
 */
export function describeArchivedWork(work: ArchivedWork): string {
  if (work.files === null) return `an archive of ${formatBytes(work.bytes)} whose inventory cannot be read (ignored files, nested repositories, git dirs)`;
  const one = (list: readonly string[]) => list.length === 1;
  const parts: string[] = [];
  if (work.files > 0 && work.nested.length === 0 && work.foreign.length === 0) parts.push('ignored files or files git would not add');
  if (work.nested.length > 0) {
    parts.push(`the nested repositor${one(work.nested) ? 'y' : 'ies'} ${names(work.nested)} whole with ${one(work.nested) ? 'its git dir' : 'their git dirs'}`);
  }
  if (work.keptGitDirs.length > 0) {
    parts.push(`the repositor${one(work.keptGitDirs) ? 'y' : 'ies'} ${names(work.keptGitDirs.map((d) => `$GIT_DIR/${d}`))} (a removed submodule's, from the worktree's git dir)`);
  }
  if (work.foreign.length > 0) {
    parts.push(`the files of ${names(work.foreign)}, worktree${one(work.foreign) ? '' : 's'} of another repository (whose git dir${one(work.foreign) ? ' is' : 's are'} that repository's)`);
  }
  if (work.foreignBundles > 0) parts.push(`the commits made in ${work.foreignBundles} worktree(s) of another repository (bundles)`);
  if (parts.length === 0) parts.push("submodules' git dirs");
  const onlyCopy = work.nested.length > 0 || work.keptGitDirs.length > 0 || work.foreignBundles > 0 ? ', whose commits may exist nowhere else' : '';
  const files = work.files > 0 ? ` (${work.files} file${work.files === 1 ? '' : 's'})` : '';
  return `an archive of ${formatBytes(work.bytes)}${files}: ${parts.join(', and ')}${onlyCopy}`;
}

/** What forgetting did with an archive holding work, in one sentence (the CLI's and the log's). */
export function keptWorkSentence(path: string, work: ArchivedWork): string {
  return `Its archive, ${describeArchivedWork(work)}, is kept in ${printable(path)}, as the snapshot ref does not hold it: paddock prune --snapshots deletes it once it is no longer needed.`;
}

/** What removing an agent whose record cannot be read kept: its whole folder, as what it holds cannot be told. */
export function unreadableKeptSentence(path: string): string {
  return `Its whole folder (the damaged record, its output and evidence) is kept in ${printable(path)}; its worktree and branch, if it had any, are left as they are (git worktree list in its repository shows them).`;
}
