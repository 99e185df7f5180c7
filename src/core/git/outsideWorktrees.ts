/**
 * A repository the agent made (or cloned) inside its worktree, with a linked worktree OUTSIDE it
 * (`git -C inner worktree add ../elsewhere`): that checkout's git data (its HEAD, index, reflog) lives
 * in `inner/.git/worktrees/<name>`, which the cleanup archives and removes with the agent's worktree.
 * Nothing is lost (the archive keeps it all, the checkout's files are not touched), but git fails
 * in that checkout until a restore brings the repository back. The capture names each one in the
 * cleanup's summary; restore links it again (needed when the repository comes back at another
 * path: linkFiles.ts, for that checkout only), or says it could not.
 * Only a checkout whose `.git` names this repository counts: the agent's copy (`cp -r`) of the
 * person's repository carries registrations of the person's worktrees, which still name the
 * person's repository and must never be taken over. Paths keep their bytes (byteFs.ts, bug 199).
 */
import * as path from 'node:path';
import { failure, PaddockError } from '../common/errors';
import { clipText } from '../common/clipText';
import { isWithin } from '../common/paths';
import { printable } from '../common/printable';
import { existsAt, listNames, lstatOf, readPathText, realPathOf } from './byteFs';
import { headOf } from './innerWorktrees';
import type { NestedRepo } from './inventory';
import { linkByHandWords } from './linkByHand';
import { writeLinkFiles } from './linkFiles';

export interface OutsideWorktree {
  /** The nested repository, relative to the agent's worktree. */
  repo: string;
  /** Its registration's id: the folder's name under the repository's `.git/worktrees`. */
  id: string;
  /** The linked worktree's folder, as its registration names it. */
  folder: string;
  /** The git dir the folder's `.git` names (absolute), as it named it: restore repairs only while it still does. */
  gitdir: string;
  /** The repository's git dir relative to the agent's worktree, when not `<repo>/.git` (a `.git` file leading to one inside it). */
  common?: string;
  /**
   * Locked (git's `locked` marker) and its folder not there at the capture, as on a drive not mounted
   * (bug 226): `gitdir` is then the registration's real path, what git wrote in its `.git`.
   */
  away?: true;
  branch: string | null;
}

interface Registration {
  adminDir: string;
  folder: string;
  locked: boolean;
}

/**
 * The git dir a locked registration's folder names, when that folder is away (not there at all) and
 * would lie outside the agent's worktree: git keeps such a registration (`git worktree lock`, for a
 * checkout on a removable drive), so the checkout comes back expecting it. Null otherwise: a folder
 * merely gone, unlocked, is stale (git prunes it), not this repository's to speak for.
 */
async function awayGitDir(r: Registration, worktree: string, root: string): Promise<string | null> {
  if (!r.locked || (await lstatOf(r.folder)) !== null) return null;
  if (isWithin(r.folder, worktree) || isWithin(r.folder, root)) return null;
  return realPathOf(r.adminDir, null);
}

/** Whether `p` is a real folder (not a symbolic link) whose real path lies in `realOuter`. */
async function folderWithin(p: string, realOuter: string): Promise<boolean> {
  const st = await lstatOf(p);
  const real = st?.isDirectory() ? await realPathOf(p, null) : null;
  return real !== null && isWithin(real, realOuter);
}

/**
 * The linked worktrees `common` (a repository's own `.git` folder) registers, read from their
 * `gitdir` files. Only registrations that really lie in `common`: a `worktrees` or `worktrees/<id>`
 * the agent linked to another repository's (`ln -s`) is removed as a link, its target untouched,
 * so git keeps working in that checkout and nothing must be said of it, or repaired.
 */
async function registrations(common: string): Promise<Registration[]> {
  const registry = path.join(common, 'worktrees');
  const realCommon = await realPathOf(common, null);
  const found: Registration[] = [];
  if (realCommon === null || !(await folderWithin(registry, realCommon))) return found;
  for (const name of (await listNames(registry)).sort()) {
    const adminDir = path.join(registry, name);
    if (!(await folderWithin(adminDir, realCommon))) continue;
    const dotGit = (await readPathText(path.join(adminDir, 'gitdir'), '')).replace(/\r?\n$/, '');
    const locked = (await lstatOf(path.join(adminDir, 'locked')))?.isFile() === true;
    if (dotGit) found.push({ adminDir, folder: path.dirname(path.resolve(adminDir, dotGit)), locked });
  }
  return found;
}

/** The git dir a checkout's `.git` file names (absolute, symbolic links not resolved), or null (no such file, not one git wrote). */
async function namedGitDir(folder: string): Promise<string | null> {
  const text = await readPathText(path.join(folder, '.git'), null);
  const named = text === null ? null : /^gitdir: (.+)$/m.exec(text)?.[1];
  return named ? path.resolve(folder, named) : null;
}

/** Whether `a` and `b` are one folder, symbolic links resolved; false when either is gone. */
async function same(a: string, b: string): Promise<boolean> {
  const [ra, rb] = [await realPathOf(a, null), await realPathOf(b, null)];
  return ra !== null && ra === rb;
}

/**
 * The git dir a nested repository's `.git` file leads to, when it and its common dir lie inside
 * `root` (`git init --separate-git-dir=<inside>`) or in the agent's private git dir `own` (a
 * submodule's, `modules/<name>`, removed with the worktree: bug 202): its linked worktrees outside
 * are as much at stake. A linked worktree's of the person's repository leads out of both, or into a
 * `.git` read anyway.
 */
async function commonDirOf(dotGitFile: string, root: string, own: string | null): Promise<string | null> {
  const gitdir = await namedGitDir(path.dirname(dotGitFile));
  if (gitdir === null) return null;
  const pointer = (await readPathText(path.join(gitdir, 'commondir'), '')).replace(/\r?\n$/, '');
  const common = pointer ? path.resolve(gitdir, pointer) : gitdir;
  const inside = (await folderWithin(common, root)) || (own !== null && (await folderWithin(common, own)));
  return inside ? realPathOf(common, null) : null;
}

/** The agent's private git dir (`<repo>/.git/worktrees/<id>`, its `.git` file names it), real path; null when `.git` is no such file. */
async function privateGitDirOf(worktree: string): Promise<string | null> {
  const st = await lstatOf(path.join(worktree, '.git'));
  const named = st?.isFile() ? await namedGitDir(worktree) : null;
  return named === null ? null : realPathOf(named, null);
}

/**
 * The linked worktrees outside `worktree` of the repositories whose git dir lies inside it, or in its
 * private git dir (a submodule's): only those whose `.git` names that repository's registration. A
 * registration whose folder is gone (not pruned) or names another repository (a copy's) is not this
 * repository's to speak for. A submodule's records no `common`: restore brings its git dir back as
 * the submodule's own `.git` folder (gitDirsToKeep.ts), where the registration is then looked for.
 */
export async function outsideWorktreesOf(worktree: string, nested: readonly NestedRepo[]): Promise<OutsideWorktree[]> {
  const root = await realPathOf(worktree, worktree);
  const own = await privateGitDirOf(worktree);
  const found: OutsideWorktree[] = [];
  const seen = new Set<string>();
  // `.git` folders first: a `.git` file leading into one of them (its linked worktree inside) adds nothing.
  for (const n of [...nested].sort((a, b) => Number(a.gitFile) - Number(b.gitFile))) {
    const dotGit = path.join(worktree, n.path, '.git');
    const realCommon = n.gitFile ? await commonDirOf(dotGit, root, own) : await realPathOf(dotGit, null);
    if (realCommon === null || seen.has(realCommon)) continue;
    seen.add(realCommon);
    const common = n.gitFile ? realCommon : dotGit;
    const rel = n.gitFile && isWithin(realCommon, root) ? { common: path.relative(root, realCommon) } : {};
    for (const r of await registrations(common)) {
      const real = await realPathOf(r.folder, null);
      const away = real === null ? await awayGitDir(r, worktree, root) : null;
      if (away !== null) {
        found.push({ repo: n.path, id: path.basename(r.adminDir), folder: r.folder, gitdir: away, ...rel, away: true, branch: (await headOf(r.adminDir, common)).branch });
        continue;
      }
      if (real === null || isWithin(real, root)) continue;
      const gitdir = await namedGitDir(r.folder);
      if (gitdir === null || !(await same(gitdir, r.adminDir))) continue;
      found.push({ repo: n.path, id: path.basename(r.adminDir), folder: r.folder, gitdir, ...rel, branch: (await headOf(r.adminDir, common)).branch });
    }
  }
  return found;
}

/** For the person, in the cleanup's summary: what stops working, and what brings it back. */
export function outsideWorktreeWords(found: readonly OutsideWorktree[]): string[] {
  return found.map((o) => {
    const folder = clipText(printable(o.folder), 1000);
    const on = o.branch ? ` (on ${clipText(printable(o.branch), 200)})` : '';
    if (o.away) {
      return `${clipText(printable(o.repo), 1000)}: a repository in the agent's worktree with a linked worktree outside it, ${folder}${on}, locked and away (its folder is not there now, as on a drive not mounted); its git data (HEAD, index, commits) is archived with the worktree, so when the folder comes back git fails in it until \`paddock restore\` brings the repository back and links it again`;
    }
    return `${clipText(printable(o.repo), 1000)}: a repository in the agent's worktree with a linked worktree outside it, ${folder}${on}; its git data (HEAD, index, commits) is archived with the worktree and git fails in ${folder} until \`paddock restore\` brings it back and links it again`;
  });
}

/**
 * A consent stop of the capture, naming these too (after its own reason): consent to clean up
 * anyway is then given knowing that git will fail in them until a restore.
 */
export function withOutsideWorktrees(err: unknown, words: readonly string[], consentCode: string): unknown {
  if (words.length === 0 || !(err instanceof PaddockError) || err.code !== consentCode || err.message.includes(words[0]!)) return err;
  return failure(`${err.message.replace(/\.$/, '')}. Also: ${words.join('; ')}.`, consentCode);
}

/**
 * At restore into `target`: each linked worktree the capture recorded (`outside`) is linked to its
 * restored repository again when its `.git` still names, exactly, the git dir it named then (removed
 * with the agent's worktree). One whose `.git` names anything else is not taken over. Returns what
 * is not as it was. `all`: the record says it holds every one (`outsideAll`); an older one may not.
 */
export async function relinkOutsideWorktrees(target: string, outside: readonly Omit<OutsideWorktree, 'branch'>[], all = false): Promise<string[]> {
  const problems: string[] = [];
  const realTarget = await realPathOf(target, target);
  for (const o of outside) {
    const repoDir = path.join(target, o.repo);
    const commonDir = path.join(target, o.common ?? path.join(o.repo, '.git'));
    const adminDir = path.join(commonDir, 'worktrees', o.id);
    if (!isWithin(repoDir, target) || !isWithin(commonDir, target) || isWithin((await realPathOf(o.folder, o.folder)), realTarget)) continue;
    const where = `${printable(o.repo)}'s linked worktree ${printable(o.folder)}`;
    const named = await namedGitDir(o.folder);
    if (named !== null && (await same(named, adminDir))) continue;
    if (named === null && o.away) {
      // Still away (bug 226): back at the old place it works as it is; elsewhere it needs linking then.
      if ((await realPathOf(adminDir, null)) !== o.gitdir) problems.push(awayWords(where, o, adminDir, target));
      continue;
    }
    if (named === null) {
      problems.push(`${where} is gone or has no .git file; the repository still lists it (\`git worktree prune\` in it forgets it).`);
      continue;
    }
    if (named !== o.gitdir || (await existsAt(named)) || !(await existsAt(adminDir))) {
      problems.push(`${where} now names ${printable(named)}; it was not linked to the restored repository (\`git worktree repair\` in it would take it over).`);
      continue;
    }
    // The restored registration a link out of the target (one the capture should never have
    // recorded): linking through it would write into what it leads to, another repository's.
    if (!(await folderWithin(adminDir, realTarget))) {
      problems.push(`${where} was not linked to the restored repository: its registration there leads out of ${printable(target)}.`);
      continue;
    }
    const failed = await writeLinkFiles(o.folder, adminDir).then(
      () => null,
      (err: unknown) => printable(clipText(err instanceof Error ? err.message : String(err), 500)),
    );
    const after = await namedGitDir(o.folder);
    if (failed !== null || after === null || !(await same(after, adminDir))) {
      problems.push(`${where} could not be linked to the restored repository again (${failed ?? 'its .git does not name it'}); git fails there until it is (${linkByHandWords(o.folder, adminDir)}).`);
    }
  }
  // A capture before every one was recorded cut the list at 200, saying nothing: the rest may be
  // missing. Only such a record: one that says it holds all, with exactly 200, has no rest (bug 201).
  if (!all && outside.length === OLD_OUTSIDE_CUT) {
    problems.push(`The evidence lists exactly ${OLD_OUTSIDE_CUT} linked worktrees outside the agent's, where a capture by an earlier Paddock stopped counting: if there were more, they were not linked to the restored repositories and git fails in them until each one's .git file names its registration in ${printable(target)} (\`git worktree list\` in each repository there lists them).`);
  }
  return problems;
}

/** What to do for a locked worktree still away, restored elsewhere: its `.git` names the old place. */
function awayWords(where: string, o: Omit<OutsideWorktree, 'branch'>, adminDir: string, target: string): string {
  return `${where} was locked and away at the cleanup and is still not there: when it comes back, its .git names ${printable(o.gitdir)}, gone, and git fails there until it is linked to the restored repository in ${printable(target)}: once it is back, ${linkByHandWords(o.folder, adminDir)}.`;
}

/** Where a capture before every outside worktree was recorded cut its list. */
const OLD_OUTSIDE_CUT = 200;
