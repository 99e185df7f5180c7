/**
 * Restore's half of innerWorktrees.ts: a linked worktree that was inside the
 * agent's comes back from the archive as files with a `.git` file naming a git
 * dir that is gone (or about to be pruned, as its folder is). It is registered
 * again at its restored folder, on its commit (kept by the snapshot), and its
 * files are put back around the new link; what cannot be linked is said, and no
 * `.git` that leads nowhere is left behind. A registration left at its path (by
 * a cleanup of an older version, or one cut short) is replaced. A folder whose name
 * is not UTF-8 (`bad\xff`) cannot be named in a git argument or working folder
 * (Node passes both as UTF-8): git is given a symbolic link to it, named in text,
 * and its two linking files are then written with the folder's bytes (bug 199).
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { firstLine, NO_HOOKS_ENV, runGit } from './runGit';
import { forgetWorktreeRegistration } from './worktreeRegistration';
import { filtersOff } from './filteredPaths';
import { listNames, withTextPath } from './byteFs';
import { writeLinkFiles } from './linkFiles';
import { fsPath } from './pathBytes';

export interface LinkedRecord {
  path: string;
  head: string | null;
  branch: string | null;
}

async function register(repo: string, dir: string, entry: LinkedRecord & { head: string }): Promise<string | null> {
  const tip = entry.branch ? await runGit(['rev-parse', '--verify', '--quiet', `refs/heads/${entry.branch}^{commit}`], { cwd: repo, allowFailure: true }) : null;
  // Its branch when that still points at the commit and is free; detached at the commit otherwise.
  if (entry.branch && tip?.stdout.trim() === entry.head) {
    const onBranch = await runGit(['worktree', 'add', '--no-checkout', '--', dir, entry.branch], { cwd: repo, allowFailure: true, pastSiblingAdds: true });
    if (onBranch.code === 0) return null;
  }
  const detached = await runGit(['worktree', 'add', '--no-checkout', '--detach', '--', dir, entry.head], { cwd: repo, allowFailure: true, pastSiblingAdds: true });
  return detached.code === 0 ? null : firstLine(detached.stderr) || `exit code ${detached.code}`;
}

/** Links each recorded inner worktree again; returns a sentence per one that could not be. */
export async function relinkInnerWorktrees(repo: string, target: string, linked: readonly LinkedRecord[]): Promise<string[]> {
  const problems: string[] = [];
  // Outer ones first, so an inner worktree of an inner worktree finds its parent's folder in place.
  for (const entry of [...linked].sort((a, b) => a.path.length - b.path.length)) {
    const dir = path.join(target, entry.path);
    const exists = await fs.lstat(fsPath(dir)).then((st) => st.isDirectory(), () => false);
    if (!exists) continue;
    // The archived `.git` file names the old registration: never left to lead nowhere.
    await fs.rm(fsPath(path.join(dir, '.git')), { force: true, recursive: true });
    if (!entry.head) {
      problems.push(`${entry.path} was a linked worktree with no commit checked out; its files are back, not linked`);
      continue;
    }
    const aside = `${dir}.paddock-relink-${randomBytes(4).toString('hex')}`;
    await fs.rename(fsPath(dir), fsPath(aside));
    // The restore's folder did not exist before it: a registration still at this path (an older
    // cleanup's, one cut short) is for a folder that was gone, and `worktree add` refuses its path.
    await forgetWorktreeRegistration(repo, dir);
    const why = await withTextFolder(target, dir, async (gitDir) => {
      const failed = await register(repo, gitDir, { ...entry, head: entry.head! });
      if (failed !== null || gitDir === dir) return failed;
      const admin = await runGit(['rev-parse', '--absolute-git-dir'], { cwd: gitDir, allowFailure: true });
      if (admin.code !== 0) return firstLine(admin.stderr) || 'its registration cannot be found';
      return writeLinkFiles(dir, admin.stdout.trim()).then(() => null, (err: unknown) => (err instanceof Error ? err.message : String(err)));
    });
    if (why !== null) {
      await fs.rm(fsPath(dir), { recursive: true, force: true });
      await fs.rename(fsPath(aside), fsPath(dir));
      problems.push(`${entry.path} was a linked worktree at ${entry.head.slice(0, 12)}; its files are back but git could not link it again (${why})`);
      continue;
    }
    for (const name of await listNames(aside)) await fs.rename(fsPath(path.join(aside, name)), fsPath(path.join(dir, name)));
    await fs.rmdir(fsPath(aside));
    await withTextFolder(target, dir, async (gitDir) => {
      // Its index is HEAD's: what differs on disk shows as changes, as it did.
      // Restore's own writes of its index: no hook of the person's (restore.ts).
      await runGit(['read-tree', entry.head!], { cwd: gitDir, env: NO_HOOKS_ENV, allowFailure: true });
      // Nor a filter: the refresh hashes each tracked file (no stat data after read-tree) through its clean filter.
      await runGit([...(await filtersOff(gitDir, NO_HOOKS_ENV)), 'update-index', '-q', '--refresh'], { cwd: gitDir, env: NO_HOOKS_ENV, allowFailure: true });
      return null;
    });
  }
  return problems;
}

/**
 * byteFs.ts's `withTextPath` for a folder git is to make a worktree of: `dir` made, empty, when
 * absent (the link needs something to lead to), the link made in a fresh folder of `target`.
 */
async function withTextFolder(target: string, dir: string, use: (gitDir: string) => Promise<string | null>): Promise<string | null> {
  if (typeof fsPath(dir) !== 'string') {
    await fs.mkdir(fsPath(dir)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
  }
  return withTextPath(dir, use, target);
}
