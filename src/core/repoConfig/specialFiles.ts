/**
 * Matches of `copy`, `link` and `.worktreeinclude` that git never lists: a FIFO, a socket or a
 * device. git's walk (`ls-files --others`) sees only files, symlinks and folders, so a `.env` made a
 * FIFO (by a secrets tool that serves it) was neither copied nor named: the agent ran without it and
 * nobody was told (bug 211). They are found by a `find` child (bounded, killable, never in Node's
 * thread pool) and matched against the same patterns by git itself (`check-ignore` in a scratch
 * repository whose only excludes are the patterns): one `link` names is linked, one `copy` names
 * is named as skipped with what it is. None is ever opened: a FIFO's open waits for a writer, a
 * device's read never ends.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { runGit } from '../git/runGit';

/** A repository with a million entries lists in seconds; past this the look is given up (nothing is then named, as before). */
const FIND_TIMEOUT_MS = 60_000;
const FIND_MAX_BYTES = 16 * 1024 * 1024;

export interface UnlistedMatch {
  path: string;
  why: string;
}

/**
 * Every FIFO, socket and device under `repo`, as paths relative to it; [] when the look fails. Its
 * `.git` is left out, and so is everything in a folder holding a `.git` (a nested clone, a
 * submodule): git's listing does not enter those, so neither copy nor link ever named what is
 * inside (the review of bug 211: a FIFO in an untracked clone at vendor/lib was named or linked).
 */
export function specialEntries(repo: string): Promise<string[]> {
  return new Promise((resolve) => {
    // A nested `.git` (a folder, or a submodule's file) is printed too, to mark its folder.
    const specials = ['(', '-type', 'p', '-o', '-type', 's', '-o', '-type', 'c', '-o', '-type', 'b', ')', '-print0'];
    const args = ['.', '-path', './.git', '-prune', '-o', '-name', '.git', '-prune', '-print0', '-o', ...specials];
    execFile('find', args, { cwd: repo, timeout: FIND_TIMEOUT_MS, killSignal: 'SIGKILL', maxBuffer: FIND_MAX_BYTES, encoding: 'buffer' }, (err, stdout) => {
      // A folder find cannot enter makes it exit 1 with the rest listed: what it found is kept.
      const listed = err && !('code' in err && err.code === 1) ? Buffer.alloc(0) : stdout;
      const found = listed
        .toString('utf8')
        .split('\0')
        .filter((p) => p.startsWith('./'))
        .map((p) => p.slice(2));
      const repos = found.filter((p) => path.basename(p) === '.git').map((p) => `${path.dirname(p)}/`);
      resolve(found.filter((p) => path.basename(p) !== '.git' && !repos.some((r) => p.startsWith(r))));
    });
  });
}

/**
 * Which of `candidates` the gitignore-style `patterns` (and the `.worktreeinclude` file, when given)
 * match, as git matches them for the listing: same rules, leading folders included.
 */
export async function matchingPatterns(candidates: readonly string[], patterns: readonly string[], includeFile: string | null): Promise<string[]> {
  if (candidates.length === 0 || (patterns.length === 0 && includeFile === null)) return [];
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'paddock-match-'));
  try {
    await runGit(['init', '-q'], { cwd: scratch });
    await fs.writeFile(path.join(scratch, '.git', 'info', 'exclude'), patterns.map((p) => `${p}\n`).join(''));
    const { stdout } = await runGit(['check-ignore', '--no-index', '-z', '--stdin'], {
      cwd: scratch,
      input: candidates.map((c) => `${c}\0`).join(''),
      allowFailure: true, // exit 1: none matched
      config: { 'core.excludesFile': includeFile ?? '/dev/null' },
    });
    const matched = new Set(stdout.split('\0').filter((p) => p.length > 0));
    return candidates.filter((c) => matched.has(c));
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

/** What a listed special file is, for the line that names it (it is never opened). */
export async function specialKind(file: string): Promise<string> {
  const stat = await fs.lstat(file).catch(() => null);
  if (stat?.isFIFO()) return 'not a regular file (a FIFO)';
  if (stat?.isSocket()) return 'not a regular file (a socket)';
  if (stat?.isCharacterDevice() || stat?.isBlockDevice()) return 'not a regular file (a device)';
  return 'not a regular file';
}

/**
 * The special files the patterns match: those `link` names are linked like any path (a symlink
 * reads nothing, and a FIFO a secrets tool serves keeps serving the agent through it); those only
 * `copy` or `.worktreeinclude` names are skipped, each with what it is (a copy would have to read it).
 */
export async function unlistedMatches(repo: string, copy: readonly string[], includeFile: string | null, link: readonly string[]): Promise<{ linkable: string[]; skipped: UnlistedMatch[] }> {
  const found = await specialEntries(repo);
  if (found.length === 0) return { linkable: [], skipped: [] };
  const [copied, linked] = await Promise.all([matchingPatterns(found, copy, includeFile), matchingPatterns(found, link, null)]);
  const skipped = await Promise.all(copied.filter((rel) => !linked.includes(rel)).map(async (rel) => ({ path: rel, why: await specialKind(path.join(repo, rel)) })));
  return { linkable: linked, skipped };
}
