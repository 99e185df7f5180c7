/**
 * The registration a cut worktree's own `.git` file names, when the repository has lost track of
 * the folder: its admin dir (`<common>/worktrees/<id>`) is there but its `gitdir` file is missing,
 * empty, or names a folder that is gone (a crash while git wrote it, a hand clean-up, the worktree
 * moved). `registrationsOf` goes by `gitdir` and finds nothing then; `git worktree repair` used to
 * link it from the `.git` file, and a cleanup or landing that no longer runs repair must not stop
 * on every retry for it. Only an admin dir lying directly in this repository's `worktrees/` counts,
 * and never one whose `gitdir` names another folder that is there (another checkout's, taken over).
 *
 * A folder that is gone may only be away: the person's checkout on a drive not mounted now, or
 * moved aside (git's `locked` marker exists for that). Taking its registration points it at the
 * agent, and the cleanup's removal then deletes its HEAD and staged index. So an admin dir that is
 * locked is never taken, and one that lost track is taken only when it is provably the agent's:
 * its HEAD names the agent's branch. (One whose `gitdir` names the agent's recorded folder is
 * found by `registrationsOf` already.)
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { realPathOr } from '../common/paths';
import { worktreeGitDir } from './headFiles';
import { readGitFileText } from './gitFileText';

/** Why no registration was usable, for the caller's sentence; or the admin dir to link to. */
export type NamedRegistration = { adminDir: string } | { problem: string };

/**
 * The admin dir `worktree`'s `.git` names when it may be linked to it (see above); `common`: the
 * repository's shared git dir; `branch`: the agent's branch (null or absent: none is known, and no
 * registration that lost track is taken).
 */
export async function registrationNamedBy(common: string, worktree: string, branch?: string | null): Promise<NamedRegistration> {
  const registry = await realPathOr(path.join(common, 'worktrees'), null);
  const named = await worktreeGitDir(worktree).catch(() => undefined);
  if (named === undefined) return { problem: `no registration in ${common}/worktrees names it and its .git names none` };
  const adminDir = await realPathOr(named, null);
  if (adminDir === null || registry === null || path.dirname(adminDir) !== registry) {
    return { problem: `no registration in ${common}/worktrees names it, and the git dir its .git names (${named}) is ${adminDir === null ? 'gone' : 'not one of them'}` };
  }
  const back = (await readGitFileText(path.join(adminDir, 'gitdir')).catch(() => '')).trim();
  const folder = back === '' ? null : path.dirname(path.resolve(adminDir, back));
  // Another checkout that is there owns this registration: linking here would take its HEAD and index.
  if (folder !== null && (await realPathOr(folder, null)) !== null) return { problem: `the registration its .git names (${adminDir}) belongs to ${folder}` };
  const owner = folder === null ? 'a checkout it lost track of' : `${folder}, which is not there now`;
  if (await exists(path.join(adminDir, 'locked'))) return { problem: `the registration its .git names (${adminDir}) is locked for ${owner} (a checkout kept away, as on a drive not mounted)` };
  if (!(await headNamesBranch(adminDir, branch))) {
    return { problem: `the registration its .git names (${adminDir}) belongs to ${owner}, and its HEAD does not name the agent's branch${branch ? ` ${branch}` : ''}, so it may be another checkout's` };
  }
  return { adminDir };
}

async function exists(file: string): Promise<boolean> {
  return fs.lstat(file).then(() => true, () => false);
}

/** Whether the admin dir's HEAD is `ref: refs/heads/<branch>` (a detached or other HEAD proves nothing). */
async function headNamesBranch(adminDir: string, branch: string | null | undefined): Promise<boolean> {
  if (!branch) return false;
  const head = (await readGitFileText(path.join(adminDir, 'HEAD')).catch(() => '')).trim();
  return head === `ref: refs/heads/${branch}`;
}
