/**
 * Sorts every entry of a worktree walk into what happens to it at cleanup:
 * - captured: in the snapshot commit (git tracks it, or would: untracked and not ignored);
 * - regenerable: ignored and matching a regenerable pattern (node_modules, .venv, *.pyc…),
 *   dropped and counted; socket files too (they cannot be saved);
 * - archived: everything else git does not hold — ignored files, empty directories,
 *   nested repositories and submodules with their history — saved in the job's archive;
 * - lost: what the person agreed to drop ("Clean Up Anyway") because it was over the
 *   archive limit or could not be read.
 */
import type { WalkEntry } from './inventory';

export const DEFAULT_REGENERABLE = ['node_modules', '.venv', 'venv', '__pycache__', 'target', '.gradle', '.next', '.cache', '*.pyc', '.DS_Store'];

/** Archives larger than this need the person's consent (bytes; 100 MB). */
export const DEFAULT_ARCHIVE_LIMIT = 100 * 1024 * 1024;

export interface Tally {
  files: number;
  bytes: number;
}

export interface Classification {
  captured: Tally;
  /** Paths to archive (folders, files, symlinks), parents before children. */
  archive: string[];
  archived: Tally;
  /** Folders with nothing in them (archived so they come back). */
  emptyDirs: number;
  regenerable: Tally & { roots: string[] };
}

/** One glob (`*`, `?`, `**`) as a regular expression over a '/'-separated path or a single name. */
export function globToRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      out += '.*';
      i++;
      if (glob[i + 1] === '/') i++;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/** Matches a relative path when one of its components matches a name pattern, or the whole path a pattern with '/'. */
export function regenerableMatcher(patterns: readonly string[]): (relPath: string) => boolean {
  const names: RegExp[] = [];
  const paths: RegExp[] = [];
  for (const p of patterns) {
    const trimmed = p.replace(/^\/+|\/+$/g, '');
    if (!trimmed) continue;
    (trimmed.includes('/') ? paths : names).push(globToRegExp(trimmed));
  }
  return (relPath) => {
    if (paths.some((re) => re.test(relPath))) return true;
    return relPath.split('/').some((part) => names.some((re) => re.test(part)));
  };
}

export interface ClassifyInput {
  entries: readonly WalkEntry[];
  /** Paths in the snapshot tree (files, symlinks, gitlinks). */
  captured: ReadonlySet<string>;
  regenerable: readonly string[];
  /** Nested repositories: never regenerable, whatever folder they sit in (their commits may exist nowhere else). */
  nested?: readonly string[];
  /** Paths git would not add: never regenerable either (no ignore rule said they could go). */
  refused?: ReadonlySet<string>;
}

export function classify(input: ClassifyInput): Classification {
  const isRegenerable = regenerableMatcher(input.regenerable);
  const nested = input.nested ?? [];
  const inNested = (p: string) => nested.some((root) => p === root || p.startsWith(`${root}/`));
  const result: Classification = {
    captured: { files: 0, bytes: 0 },
    archive: [],
    archived: { files: 0, bytes: 0 },
    emptyDirs: 0,
    regenerable: { files: 0, bytes: 0, roots: [] },
  };
  const hasChildren = new Set<string>();
  for (const e of input.entries) {
    const slash = e.path.lastIndexOf('/');
    if (slash > 0) hasChildren.add(e.path.slice(0, slash));
  }
  for (const e of input.entries) {
    if (input.captured.has(e.path)) {
      result.captured.files++;
      result.captured.bytes += e.size;
      continue;
    }
    if ((isRegenerable(e.path) && !inNested(e.path) && !input.refused?.has(e.path)) || e.type === 'socket') {
      // Report the top-most matching path once ("node_modules", not each file in it).
      const parent = e.path.slice(0, Math.max(0, e.path.lastIndexOf('/')));
      if ((parent === '' || !isRegenerable(parent)) && result.regenerable.roots.length < 50) result.regenerable.roots.push(e.path);
      if (e.type !== 'dir') {
        result.regenerable.files++;
        result.regenerable.bytes += e.size;
      }
      continue;
    }
    result.archive.push(e.path);
    if (e.type === 'dir') {
      if (!hasChildren.has(e.path)) result.emptyDirs++;
    } else {
      result.archived.files++;
      result.archived.bytes += e.size;
    }
  }
  return result;
}
