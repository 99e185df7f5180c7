/**
 * Linked worktrees of ANOTHER repository that the agent made inside its own
 * (`git -C /other worktree add $WORKTREE/sub --detach`). Their files are
 * archived with the worktree's, but the commits made there live in the other
 * repository, known only to that worktree's HEAD and reflog in its
 * registration (`/other/.git/worktrees/sub`): once the folder is gone, the
 * other repository's `worktree prune` (run by its own `gc`, too) drops the
 * registration and its next gc the commits. The capture writes those commits,
 * and only those, as a git bundle into the job's evidence folder
 * (foreignBundle.ts): nothing is written into the person's repository nor into
 * the other one, whose registration stays: the person is told, and restore says
 * whether it links again and how to fetch the commits back. A staged state there
 * (its index and blobs live in the other repository) cannot be kept without
 * writing there: the capture stops for consent, naming it (foreignStagedSentence).
 */
import * as path from 'node:path';
import { failure, PaddockError } from '../common/errors';
import { randomBytes } from '../common/lazyCrypto';
import { isWithin, realPathOr } from '../common/paths';
import { commonDirOf, gitDirOwner } from './headFiles';
import { printable } from '../common/printable';
import { isCommitId } from './commitId';
import { headOf } from './innerWorktrees';
import type { NestedRepo } from './inventory';
import { commitsOnlyInWorktree } from './keptCommits';
import { READ_ONLY_GIT, runGit } from './runGit';
import { privateGitDir } from './gitDirsToKeep';
import { writeForeignBundle } from './foreignBundle';
import { syncFile } from './archive';
import { clipText } from '../common/clipText';
import { inlineCommand, shellQuote } from '../common/shellQuote';
import { makeDirs } from '../common/makeDirs';

export interface ForeignWorktree {
  /** Its folder, relative to the agent's worktree. */
  path: string;
  /** The other repository's shared git dir. */
  repo: string;
  /** Its registration there (`<repo>/worktrees/<name>`). */
  gitDir: string;
  head: string | null;
  branch: string | null;
}

/** As the inventory records it. */
export interface ForeignRecord {
  path: string;
  repo: string;
  head: string | null;
  branch: string | null;
  /** The tips of what only it knew (each a ref of the bundle); all of it is in `bundle`. */
  commits: string[];
  /** The bundle of them, relative to the evidence folder; absent when there was nothing to keep, or it could not be made. */
  bundle?: string;
  /** How many commits the bundle holds. */
  count?: number;
  /** The other repository's commits the bundle is built on (its prerequisites), which it must still have to take it back. Absent: none. */
  needs?: string[];
  /** Commits that could not be kept, left (with consent) in the other repository only. Absent: none. */
  notCopied?: number;
}

/** The evidence folder's subfolder of bundles. */
export const FOREIGN_DIR = 'foreign';

/**
 * The nested checkouts whose `.git` file names a linked worktree's git dir (it has a `commondir`)
 * of a repository other than the agent's, whose registration names this very folder back (its
 * `gitdir` file): a `cp -r` copy of some worktree names a registration that is another folder's,
 * and is plain files here. Those of the agent's own repository are innerWorktrees.ts'; those whose
 * git dir is inside the worktree's private one die with it and are archived (gitDirsToKeep.ts).
 */
export async function foreignWorktreesIn(worktree: string, nested: readonly NestedRepo[], ownGitDir: string, ownCommon: string): Promise<{ found: ForeignWorktree[]; inside: InsideLinked[] }> {
  const own = await realPathOr(ownCommon, ownCommon);
  const ownPrivate = await realPathOr(ownGitDir, ownGitDir);
  const root = await realPathOr(worktree, worktree);
  const found: ForeignWorktree[] = [];
  const inside: InsideLinked[] = [];
  for (const n of nested) {
    if (!n.gitFile) continue;
    const dir = path.join(worktree, n.path);
    let gitDir: string;
    try {
      gitDir = await realPathOr(privateGitDir(dir), '');
    } catch {
      continue;
    }
    if (gitDir === '' || gitDir === ownPrivate || gitDir.startsWith(ownPrivate + path.sep)) continue;
    // A linked worktree's git dir names its repository (`commondir`); a repository's own does not.
    const common = await commonDirOf(gitDir);
    if (common === gitDir) continue;
    const repo = await realPathOr(common, common);
    if (repo === own) continue;
    // Its registration must name this very folder back: a `cp -r` copy names another folder's.
    if ((await gitDirOwner(dir)) !== 'this') continue;
    // A linked worktree of a repository in the agent's worktree (`git -C inner worktree add ../in2`):
    // its HEAD, index and commits are in that repository's git dir, archived whole with the worktree
    // and restored with it. No other repository, no bundle, no consent for its staged changes (bug 225).
    if (isWithin(repo, root)) {
      inside.push({ path: n.path, repo: path.basename(repo) === '.git' ? path.relative(root, path.dirname(repo)) : path.relative(root, repo) });
      continue;
    }
    found.push({ path: n.path, repo, gitDir, ...(await headOf(gitDir, repo)) });
  }
  return { found, inside };
}

/** A nested checkout linked to a repository inside the agent's worktree: both relative to it. */
export interface InsideLinked {
  path: string;
  repo: string;
}

/** For the person, in the summary: what such a checkout is, and that nothing of it is lost. */
export function insideLinkedWords(inside: readonly InsideLinked[]): string[] {
  return inside.map((i) => `${clipText(printable(i.path), 1000)}: a linked worktree of ${clipText(printable(i.repo) || '.', 1000)}, a repository in the agent's worktree; its HEAD, index (staged changes) and commits are in that repository's git data, archived with the worktree and restored with it`);
}

/**
 * The foreign worktrees whose index holds staged changes (or cannot be compared): those are in the
 * other repository's index and objects, which the capture does not write to; their files are archived.
 */
export async function foreignWorktreeStaged(worktree: string, foreign: readonly ForeignWorktree[]): Promise<string[]> {
  const staged: string[] = [];
  for (const f of foreign) {
    const res = await runGit(['diff', '--cached', '--quiet', '--no-ext-diff'], { cwd: path.join(worktree, f.path), env: READ_ONLY_GIT, allowFailure: true });
    if (res.code !== 0) staged.push(f.path);
  }
  return staged;
}

/**
 * Where to move one out of the agent's worktree: `worktree move` keeps its registration and its
 * HEAD's reflog, the only record of its commits. The paths quoted, never shortened (a clipped path
 * names another folder): past `max`, the command is named without them.
 */
const moveAdvice = (f: { path: string; repo: string }, worktree: string, max = 4000) => {
  const move = inlineCommand(['git', '-C', shellQuote(f.repo), 'worktree', 'move', shellQuote(path.join(worktree, f.path)), '<elsewhere>'], max) ?? '`git worktree move` run in that repository';
  return `move it out of the agent's worktree with ${move} (which keeps its registration and its commits' record there)`;
};

/** The consent reason of staged changes in foreign worktrees; null when none. Every consent stop names it (withForeignStaged). */
export function foreignStagedSentence(staged: readonly string[], worktree: string, repoOf: (p: string) => string): string | null {
  if (staged.length === 0) return null;
  const names = staged.slice(0, 5).map((p) => clipText(printable(p), 120)).join(', ');
  const more = staged.length > 5 ? ` and ${staged.length - 5} more` : '';
  return `${names}${more}: worktree(s) of another repository with staged changes, which live in that repository's index, not in these files, and would be dropped; commit or unstage them there, or ${moveAdvice({ path: staged[0]!, repo: repoOf(staged[0]!) }, worktree, 600)}, and retry, or clean up anyway to keep only the files`;
}

/**
 * A consent stop thrown by the capture, naming the foreign staged changes too (first: the record
 * keeps 2,000 characters of it), so consent to it is consent to dropping them.
 */
export function withForeignStaged(err: unknown, sentence: string | null, consentCode: string): unknown {
  if (!sentence || !(err instanceof PaddockError) || err.code !== consentCode || err.message.includes(sentence)) return err;
  return failure(`Nothing was removed: ${sentence}. Also: ${err.message.replace(/^Nothing was removed: /, '')}`, consentCode);
}

/**
 * Writes a bundle of the commits only each foreign worktree knows (its HEAD, reflogs, pseudo-refs
 * and own refs, less what the other repository's local branches and tags keep) to
 * a temporary beside `<evidenceDir>/foreign/<ms>-<hex>-<n>.bundle` (pushed on `o.temps`, for the caller
 * to remove on failure), verified and synced; the caller renames each into place (foreignCapture.ts).
 * The names are this capture's own: an earlier capture's bundle is never overwritten.
 */
export async function keepForeignCommits(
  o: { worktree: string; evidenceDir: string; scratch: string; temps: string[]; drop: boolean; code: string },
  foreign: readonly ForeignWorktree[],
): Promise<{ records: ForeignRecord[]; temps: { temp: string; file: string }[] }> {
  const records: ForeignRecord[] = [];
  const temps: { temp: string; file: string }[] = [];
  const stem = `${Date.now()}-${randomBytes(4).toString('hex')}`;
  for (const [i, f] of foreign.entries()) {
    const checkout = path.join(o.worktree, f.path);
    const { tips } = await commitsOnlyInWorktree(checkout, f.gitDir, null, null, [{ path: '', gitDir: f.gitDir, head: f.head, branch: f.branch }]);
    const commits = tips.filter((sha) => isCommitId(sha));
    const base = { path: f.path, repo: f.repo, head: f.head, branch: f.branch };
    if (commits.length === 0) {
      records.push({ ...base, commits });
      continue;
    }
    const file = path.join(o.evidenceDir, FOREIGN_DIR, `${stem}-${i}.bundle`);
    const temp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    await makeDirs(path.dirname(file), 0o700);
    o.temps.push(temp);
    const made = await writeForeignBundle(checkout, commits, temp, o.scratch);
    if (made.ok) {
      if (made.count > 0) {
        await syncFile(temp);
        temps.push({ temp, file });
      }
      const needs = made.needs.length > 0 ? { needs: made.needs.slice(0, 50) } : {};
      records.push({ ...base, commits, ...(made.count > 0 ? { bundle: path.relative(o.evidenceDir, file), count: made.count, ...needs } : {}) });
      continue;
    }
    // With consent they stay where they are, in the other repository only, and the person is told so.
    if (o.drop) {
      records.push({ ...base, commits: [], notCopied: commits.length });
      continue;
    }
    throw failure(
      `Nothing was removed: ${clipText(printable(f.path), 1000)} is a worktree of another repository (${clipText(printable(f.repo), 1000)}) whose commits could not be kept (${clipText(made.why, 500)}). Commit them onto a branch there, or ${moveAdvice(f, o.worktree)}, and retry; or clean up anyway to leave them in that repository only.`,
      o.code,
    );
  }
  return { records, temps };
}

/** That a bundle is built on commits of the other repository's history, which must still have them: a bundle alone cannot be taken back. */
export function foreignNeedsWords(r: { repo: string; needs?: readonly string[] }): string {
  const needs = r.needs ?? [];
  if (needs.length === 0) return '';
  const shown = needs.slice(0, 3).map((sha) => `${sha.slice(0, 12)}…`).join(', ');
  const more = needs.length > 3 ? ` and ${needs.length - 3} more` : '';
  return ` (built on ${shown}${more} of ${clipText(printable(r.repo), 1000)}'s history, which must still have ${needs.length === 1 ? 'it' : 'them'} to take it back)`;
}

/** For the person: where each went, and that the other repository still lists it. */
export function foreignWorktreeWords(records: readonly ForeignRecord[], evidenceDir: string): string[] {
  return records.map((r) => {
    const kept = r.notCopied
      ? `${r.notCopied} commit line(s) made there NOT kept (they could not be bundled; they are in that repository only, until it prunes the worktree)`
      : r.bundle
        ? `its ${r.count ?? 0} commit(s) made there kept in ${clipText(printable(path.join(evidenceDir, r.bundle)), 1000)}${foreignNeedsWords(r)}`
        : 'no commit only it knew';
    return `${clipText(printable(r.path), 1000)}: a worktree of ${clipText(printable(r.repo), 1000)}; ${kept}; that repository still lists it (\`git worktree prune\` there forgets it)`;
  });
}
