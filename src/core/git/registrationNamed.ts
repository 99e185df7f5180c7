/**
 * The registration a cut worktree's own `.git` file names, when the repository has lost track of
 * the folder: its admin dir (`<common>/worktrees/<id>`) is there but its `gitdir` file is missing,
 * empty, or names a folder that is gone (a crash while git wrote it, a hand clean-up, the worktree
 * moved). `registrationsOf` goes by `gitdir` and finds nothing then; `git worktree repair` used to
 * link it from the `.git` file, and a cleanup or landing that no longer runs repair must not stop
 * on every retry for it. Only an admin dir lying directly in this repository's `worktrees/` counts,
 * and never one whose `gitdir` names another folder that is there (another checkout's, taken over).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { realPathOr } from '../common/paths';
import { worktreeGitDir } from './headFiles';

/** Why no registration was usable, for the caller's sentence; or the admin dir to link to. */
export type NamedRegistration = { adminDir: string } | { problem: string };

/** The admin dir `worktree`'s `.git` names when it may be linked to it (see above); `common`: the repository's shared git dir. */
export async function registrationNamedBy(common: string, worktree: string): Promise<NamedRegistration> {
  const registry = await realPathOr(path.join(common, 'worktrees'), null);
  const named = await worktreeGitDir(worktree).catch(() => undefined);
  if (named === undefined) return { problem: `no registration in ${common}/worktrees names it and its .git names none` };
  const adminDir = await realPathOr(named, null);
  if (adminDir === null || registry === null || path.dirname(adminDir) !== registry) {
    return { problem: `no registration in ${common}/worktrees names it, and the git dir its .git names (${named}) is ${adminDir === null ? 'gone' : 'not one of them'}` };
  }
  const back = (await fs.readFile(path.join(adminDir, 'gitdir'), 'utf8').catch(() => '')).trim();
  if (back === '') return { adminDir };
  const folder = path.dirname(path.resolve(adminDir, back));
  // Another checkout that is there owns this registration: linking here would take its HEAD and index.
  if ((await realPathOr(folder, null)) !== null) return { problem: `the registration its .git names (${adminDir}) belongs to ${folder}` };
  return { adminDir };
}
