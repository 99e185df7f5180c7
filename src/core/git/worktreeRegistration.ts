/**
 * Forgets the registration of one worktree whose folder is gone, and no
 * other's. `git worktree prune` drops every registration whose folder is
 * missing: a worktree of the person's on a drive that is not mounted right now
 * would lose its registration, its index (staged work) and the lock on its
 * branch. Paddock removes only what it made.
 */
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { runGit } from './runGit';
import { listNames, readPathText } from './byteFs';
import { fsPath } from './pathBytes';
import { realPathOr, realPathOrSync } from '../common/paths';

/** `folder` as git records it: symlinks resolved (through its parent when it is gone, usually still there). */
export function resolvedPath(folder: string): string {
  const abs = path.resolve(folder);
  const real = realPathOrSync(abs, null);
  if (real !== null) return real;
  const parent = path.dirname(abs);
  return path.join(realPathOrSync(parent, parent), path.basename(abs));
}

/** `resolvedPath` without blocking: for callers on the extension host's event loop. */
export async function resolvedPathOf(folder: string): Promise<string> {
  const abs = path.resolve(folder);
  const real = await realPathOr(abs, null);
  if (real !== null) return real;
  const parent = path.dirname(abs);
  return path.join(await realPathOr(parent, parent), path.basename(abs));
}

/**
 * The admin dirs under `repo`'s git dir's `worktrees/` whose `gitdir` file points into `folder`
 * (its registrations: one, unless git was fooled). `repo`: any worktree or the git dir of the repository.
 */
export async function registrationsOf(repo: string, folder: string): Promise<string[]> {
  const res = await runGit(['rev-parse', '--git-common-dir'], { cwd: repo, allowFailure: true });
  if (res.code !== 0) return [];
  const admin = path.join(path.resolve(repo, res.stdout.trim()), 'worktrees');
  const wanted = new Set([path.resolve(folder), resolvedPath(folder)]);
  const found: string[] = [];
  // Bytes kept (byteFs.ts): a folder under `bad\xff` read as `bad\ufffd` matched nothing (bug 199).
  for (const name of await listNames(admin)) {
    const dir = path.join(admin, name);
    const gitdir = await readPathText(path.join(dir, 'gitdir'), null);
    if (gitdir === null || gitdir.trim() === '') continue;
    // `gitdir` names the worktree's `.git` file (relative to the admin dir when git wrote it relative).
    const registered = path.dirname(path.resolve(dir, gitdir.trim()));
    if (wanted.has(registered) || wanted.has(resolvedPath(registered))) found.push(dir);
  }
  return found;
}

/**
 * Removes `repo`'s registration of the worktree at `folder` when that folder is gone. Returns
 * whether one was removed; a folder still on disk is never forgotten (git's `worktree remove` is for that).
 */
export async function forgetWorktreeRegistration(repo: string, folder: string): Promise<boolean> {
  if (existsSync(fsPath(folder))) return false;
  const dirs = await registrationsOf(repo, folder);
  for (const dir of dirs) await removeRegistration(dir);
  return dirs.length > 0;
}

/**
 * Removes one registration (an admin dir under `worktrees/`), its `gitdir` last: that file is all
 * that names the worktree's folder, so a removal killed half-way (one recursive rm takes entries in
 * any order) still leaves a registration `registrationsOf` finds, and the next try finishes it.
 */
export async function removeRegistration(dir: string): Promise<void> {
  for (const name of await listNames(dir)) {
    if (name !== 'gitdir') await fs.rm(fsPath(path.join(dir, name)), { recursive: true, force: true });
  }
  await fs.rm(fsPath(dir), { recursive: true, force: true });
}
