/**
 * Brings what git does not carry into a new worktree: files the repository
 * ignores or does not track (`.env`, `.env.local`, …) named by the `copy`
 * globs or by a `.worktreeinclude` file are copied (modes kept), and those
 * named by `link` are symlinked to the main worktree's (large caches).
 *
 * Patterns are gitignore-style and matched by git itself (`git ls-files
 * --others --ignored`), so `.env` matches at any depth, `/.env` only at the
 * root, `dir/` a folder — as in `.gitignore` and Claude Code's
 * `.worktreeinclude`. Only untracked paths are listed, so no tracked file is
 * ever copied over. Nothing outside the repository is followed: a symlink is
 * recreated only when it points inside the repository, at the worktree's own
 * path, and kept only where it then leads inside the worktree (else settled:
 * copiedLinks.ts), and
 * nothing is written through a folder that leads out of the worktree. All fs
 * work is async.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { describeError, failure } from '../common/errors';
import { isWithin, realPathOr } from '../common/paths';
import { runGit } from '../git/runGit';
import { makeDirs } from '../common/makeDirs';
import { copyFromMount, copyRegularFile } from './copyRegular';
import { mountsInRepo, underMount } from './mountPoints';
import { newCopier, SMALL_COPY_TIMEOUT_MS, type Copier } from './smallCopy';
import { resolvedTarget, settleCopiedLink } from './copiedLinks';
import { refusedRead } from './unreadable';
import { unlistedMatches, type UnlistedMatch } from './specialFiles';

export const WORKTREE_INCLUDE = '.worktreeinclude';
/** Copies in flight at once: enough to hide latency, few enough not to exhaust descriptors. */
const COPY_CONCURRENCY = 16;
/** A timeline line naming skipped paths stays under the store's cut, with room for redaction's longer marks. */
const SKIPPED_LINE_CHARS = 1500;

export interface WorktreeFilesRequest {
  /** The main worktree (where the files are). */
  repo: string;
  worktree: string;
  copy: readonly string[];
  link: readonly string[];
}

export interface WorktreeFilesResult {
  copied: number;
  linked: number;
  /** Paths left out, with why ("points outside the repository", "exists in the worktree"). */
  skipped: { path: string; why: string }[];
}

/**
 * What a new worktree gets, found in the main worktree: made before the new worktree exists (git
 * only reads the main one), so the listing runs while git checks the new one out.
 */
export interface WorktreeFilesPlan {
  repo: string;
  repoReal: string;
  /** Linked paths, none inside another (a linked folder is linked whole). */
  linked: string[];
  /** Copied paths, none inside a linked folder (a linked folder is linked whole). */
  copied: string[];
  /** Matches git does not list (a FIFO, a socket, a device): never brought, each named as skipped. */
  unlisted: UnlistedMatch[];
}

/** The files to bring (null when nothing is configured and there is no `.worktreeinclude`). */
export async function planWorktreeFiles(req: Omit<WorktreeFilesRequest, 'worktree'>): Promise<WorktreeFilesPlan | null> {
  const include = path.join(req.repo, WORKTREE_INCLUDE);
  const hasInclude = await isFile(include);
  if (req.copy.length === 0 && req.link.length === 0 && !hasInclude) return null;
  const [repoReal, linked, copied, unlisted] = await Promise.all([
    fs.realpath(req.repo),
    req.link.length > 0 ? untrackedMatching(req.repo, req.link, null, true) : [],
    req.copy.length > 0 || hasInclude ? untrackedMatching(req.repo, req.copy, hasInclude ? include : null, false) : [],
    unlistedMatches(req.repo, req.copy, hasInclude ? include : null, req.link),
  ]);
  // A linked folder is linked whole: git also lists the matching paths inside it, which are neither
  // linked again (through the new link, out of the worktree) nor copied.
  const within = (rel: string, folder: string) => rel.startsWith(`${folder}/`);
  const allLinked = [...linked, ...unlisted.linkable].sort();
  const roots = allLinked.filter((rel) => !allLinked.some((l) => within(rel, l)));
  const outsideLinked = (rel: string) => !roots.some((l) => rel === l || within(rel, l));
  return { repo: req.repo, repoReal, linked: roots, copied: copied.filter(outsideLinked), unlisted: unlisted.skipped.filter((u) => outsideLinked(u.path)) };
}

/**
 * Links and copies the planned files into the worktree. A copied path under a mount point inside
 * the repository is looked at and copied by this placement's own killable child, which waits at
 * most `copyTimeoutMs` for each answer (bug 214); every other one in-process.
 */
export async function placeWorktreeFiles(plan: WorktreeFilesPlan, worktree: string, copyTimeoutMs = SMALL_COPY_TIMEOUT_MS): Promise<WorktreeFilesResult> {
  const copier = newCopier(copyTimeoutMs);
  try {
    return await placeAll(plan, worktree, copier);
  } finally {
    copier.close();
  }
}

async function placeAll(plan: WorktreeFilesPlan, worktree: string, copier: Copier): Promise<WorktreeFilesResult> {
  const result: WorktreeFilesResult = { copied: 0, linked: 0, skipped: [...plan.unlisted] };
  const [worktreeReal, mounts] = await Promise.all([fs.realpath(worktree), mountsInRepo(plan.repo, plan.repoReal)]);
  const req: Placement = { repo: plan.repo, worktree, copier: (rel) => (underMount(rel, mounts) ? copier : null) };
  const folders: FolderChecks = new Map();
  const linkedReal: string[] = [];
  for (const rel of plan.linked) {
    const why = await linkOne(req, rel, plan.repoReal, worktreeReal, folders);
    if (why) result.skipped.push({ path: rel, why });
    else {
      result.linked++;
      // Where a copied link may lead and be kept: the person chose to share these with the checkout.
      const real = await realPathOr(path.join(worktree, rel), null);
      if (real !== null) linkedReal.push(real);
    }
  }
  const links: string[] = [];
  await inParallel(plan.copied, COPY_CONCURRENCY, async (rel) => {
    const why = await copyOne(req, rel, plan.repoReal, worktreeReal, folders, links);
    if (why) result.skipped.push({ path: rel, why });
    else result.copied++;
  });
  // Once all are placed (a link may lead to another copied path): a link whose target the worktree lacks.
  for (const rel of links.sort()) {
    const why = await settleCopiedLink(rel, plan, { path: worktree, real: worktreeReal, linkedReal }).catch((err: unknown) => {
      throw placementFailure('copy', rel, err);
    });
    if (why === null) continue;
    result.copied--;
    result.skipped.push({ path: rel, why });
  }
  return result;
}

/**
 * The timeline's lines for what was brought (none when nothing was). Every path left out is named:
 * the first five used to be, so a sixth `.env` skipped went unsaid; the rest follow in lines of
 * their own, each under the store's cut (messageRedaction.ts cuts a message at 2,000 characters).
 */
export function describeWorktreeFiles(result: WorktreeFilesResult): string[] {
  if (result.copied + result.linked + result.skipped.length === 0) return [];
  const summary = `copied ${result.copied} and linked ${result.linked} untracked path(s) into the worktree`;
  const named = [...result.skipped].sort((x, y) => (x.path < y.path ? -1 : 1)).map((s) => `${s.path} (${s.why})`);
  if (named.length === 0) return [summary];
  const lines: string[] = [];
  let line = `${summary}; skipped ${named[0]}`;
  for (const item of named.slice(1)) {
    if (line.length + 2 + item.length <= SKIPPED_LINE_CHARS) line += `, ${item}`;
    else {
      lines.push(line);
      line = `also skipped ${item}`;
    }
  }
  lines.push(line);
  return lines;
}

/** Untracked paths (ignored or not) matching the patterns; with `directories`, a wholly matching folder as itself. */
async function untrackedMatching(repo: string, patterns: readonly string[], excludeFrom: string | null, directories: boolean): Promise<string[]> {
  const args = ['ls-files', '-z', '--others', '--ignored'];
  if (directories) args.push('--directory');
  for (const p of patterns) args.push(`--exclude=${p}`);
  if (excludeFrom) args.push(`--exclude-from=${excludeFrom}`);
  const { stdout } = await runGit(args, { cwd: repo });
  return stdout
    .split('\0')
    .filter((p) => p.length > 0)
    .map((p) => p.replace(/\/+$/, ''))
    .filter(isPlainRelative);
}

/** git names paths inside the repository; anything else (absolute, `..`) is refused outright. */
function isPlainRelative(rel: string): boolean {
  return rel.length > 0 && !path.isAbsolute(rel) && !rel.split('/').some((part) => part === '..' || part === '');
}

/** The destination's folder, created, and proven to lie inside the worktree (no symlinked folder leads out). */
async function destinationIn(worktreeReal: string, dest: string, folders: FolderChecks): Promise<string | null> {
  const dir = path.dirname(dest);
  let checked = folders.get(dir);
  if (!checked) {
    // Once per folder (its files are copied side by side): made, then proven to resolve inside the worktree.
    checked = makeDirs(dir, 0o755).then(async () => (isWithin(await fs.realpath(dir), worktreeReal) ? dir : null));
    folders.set(dir, checked);
  }
  return checked;
}

/** Where one file goes: from the main worktree into the new one; the copier for a path under a mount point, else null. */
type Placement = Pick<WorktreeFilesRequest, 'repo' | 'worktree'> & { copier?: (rel: string) => Copier | null };

/** Destination folders already made and checked during one placement. */
type FolderChecks = Map<string, Promise<string | null>>;

/**
 * One sentence that stays short: the path cut in its middle, and the system's error code rather
 * than its message (which repeats both full paths, thousands of bytes for a deep one).
 */
function placementFailure(verb: 'copy' | 'link', rel: string, err: unknown): Error {
  const shown = rel.length > 120 ? `${rel.slice(0, 60)}…${rel.slice(-59)}` : rel;
  const code = (err as NodeJS.ErrnoException)?.code;
  return failure(`Could not ${verb} ${shown} into the worktree: ${code ? `${code} (${errnoWords(err)})` : describeError(err)}`);
}

/** "name too long" from "ENAMETOOLONG: name too long, copyfile '…' -> '…'". */
function errnoWords(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/^[A-Z]+: /, '').split(',')[0].trim();
}

/** `COPYFILE_EXCL` and `symlink` refuse an existing destination themselves: no separate look first. */
function existed(err: unknown): boolean {
  return (err as NodeJS.ErrnoException)?.code === 'EEXIST';
}

/** Copies one path; a symlink recreated is added to `links`. */
async function copyOne(req: Placement, rel: string, repoReal: string, worktreeReal: string, folders: FolderChecks, links: string[]): Promise<string | null> {
  const source = path.join(req.repo, rel);
  const dest = path.join(req.worktree, rel);
  try {
    const copier = req.copier?.(rel) ?? null;
    if (copier !== null) return await copyOnMount(copier, req, rel, repoReal, await destinationIn(worktreeReal, dest, folders), links);
    // A folder git can list but this user cannot search (root's, mode 744): the file is unreadable, left out like one of mode 600.
    const [stat, folder] = await Promise.all([fs.lstat(source).catch((err: unknown) => refusedRead(err) ?? Promise.reject(err)), destinationIn(worktreeReal, dest, folders)]);
    if (typeof stat === 'string') return stat;
    if (!folder) return 'its folder leads outside the worktree';
    if (stat.isSymbolicLink()) {
      const target = worktreeTarget(rel, path.resolve(path.dirname(source), await fs.readlink(source)), req.repo, repoReal);
      if (target === null) return 'a symlink pointing outside the repository';
      await fs.symlink(target, dest);
      links.push(rel);
      return null;
    }
    if (!stat.isFile()) return 'not a regular file';
    return await copyRegularFile(source, dest);
  } catch (err) {
    if (existed(err)) return 'exists in the worktree';
    throw placementFailure('copy', rel, err);
  }
}

/** copyOne for a path under a mount point: its lstat, open and copy all in the placement's child (bug 214). */
async function copyOnMount(copier: Copier, req: Placement, rel: string, repoReal: string, folder: string | null, links: string[]): Promise<string | null> {
  if (!folder) return 'its folder leads outside the worktree';
  const source = path.join(req.repo, rel);
  const dest = path.join(req.worktree, rel);
  const outcome = await copyFromMount(copier, source, dest);
  if (outcome === null || typeof outcome === 'string') return outcome;
  const target = worktreeTarget(rel, path.resolve(path.dirname(source), outcome.linkText), req.repo, repoReal);
  if (target === null) return 'a symlink pointing outside the repository';
  await fs.symlink(target, dest);
  links.push(rel);
  return null;
}

/**
 * What a copied symlink points at in the worktree: the same path of the worktree, relative to the
 * link. Its own text would lead out of the worktree: an absolute target names the main checkout, and
 * a relative one may climb out of the repository and back in by its name (`../../repo/.env`), so the
 * agent's writes through the copy changed the person's file (bug 161). `..` is settled by the
 * text, not by what the folders it passes resolve to (the text is what was judged to stay inside).
 * Null when it leads outside the repository.
 */
function worktreeTarget(rel: string, resolved: string, repo: string, repoReal: string): string | null {
  const base = isWithin(resolved, repo) ? repo : isWithin(resolved, repoReal) ? repoReal : null;
  if (base === null) return null;
  return path.relative(path.dirname(path.join(base, rel)), resolved) || '.';
}

async function linkOne(req: Placement, rel: string, repoReal: string, worktreeReal: string, folders: FolderChecks): Promise<string | null> {
  const source = path.join(req.repo, rel);
  const dest = path.join(req.worktree, rel);
  try {
    // The link points at the main worktree's own path; what it resolves to must stay inside the repository.
    const resolved = await resolvedTarget(source);
    if (typeof resolved !== 'string') return resolved.why;
    if (!isWithin(resolved, repoReal)) return 'points outside the repository';
    if (!(await destinationIn(worktreeReal, dest, folders))) return 'its folder leads outside the worktree';
    const stat = await fs.stat(source);
    await fs.symlink(source, dest, stat.isDirectory() ? 'dir' : 'file');
    return null;
  } catch (err) {
    if (existed(err)) return 'exists in the worktree';
    throw placementFailure('link', rel, err);
  }
}

async function isFile(p: string): Promise<boolean> {
  try {
    return (await fs.stat(p)).isFile();
  } catch {
    return false;
  }
}

async function inParallel<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}
