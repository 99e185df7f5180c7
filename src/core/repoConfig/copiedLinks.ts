/**
 * A copied symlink whose target the worktree lacks. Bug 161 points a copied
 * link at the worktree's own path rather than the checkout's; when that path
 * is untracked and not copied itself (`.env -> local/env.real`, `local/`
 * ignored and not named by `copy`), the link dangled in the worktree yet was
 * counted as copied, where it used to read the checkout's file (the review of
 * bug 161). Such a link is replaced by a copy of the checkout's file it leads
 * to: the agent reads what the person has, and its writes stay in the
 * worktree. A link to a folder, a FIFO or a device, to nothing, to what
 * cannot be read, or out of the repository is left out with why, never left
 * dangling and never failing the start.
 *
 * A link is kept only where it really leads: inside the worktree, or into what
 * `link` brought (the person's choice to share). Its text was judged to stay
 * inside, but a tracked folder link on its way (`shared -> ../outside`, or
 * `../repo/local`, the checkout itself) leads it out (the second review).
 */
import { constants } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { isWithin } from '../common/paths';
import { copyRegularFile } from './copyRegular';
import { isSystemCode, unreadableWhy } from './unreadable';

/** The new worktree as settling sees it: its real path, and the real paths of what `link` placed in it. */
export interface SettledWorktree {
  path: string;
  real: string;
  linkedReal: readonly string[];
}

/** Null when the copied link at `rel` leads inside the worktree (or into a linked path) or was replaced by the file; else why it was removed. */
export async function settleCopiedLink(rel: string, plan: { repo: string; repoReal: string }, worktree: SettledWorktree): Promise<string | null> {
  const dest = path.join(worktree.path, rel);
  // Any error (gone, a loop, not searchable) is a link that leads nowhere here: the checkout's decides.
  const reached = await fs.realpath(dest).catch(() => null);
  if (reached !== null && (isWithin(reached, worktree.real) || worktree.linkedReal.some((l) => isWithin(reached, l)))) return null;
  const resolved = await resolvedTarget(path.join(plan.repo, rel));
  await fs.unlink(dest); // the link made moments ago, before the agent runs
  if (typeof resolved !== 'string') return resolved.why;
  // Judged again on what the checkout's link resolves to: its folders may lead out where its text did not.
  if (!isWithin(resolved, plan.repoReal)) return 'a symlink pointing outside the repository';
  const why = await unfitTarget(resolved);
  return why ?? copyRegularFile(resolved, dest);
}

/** Why the file a link resolves to is not copied (null: it is a regular file this user can read); it is never opened to find out. */
async function unfitTarget(resolved: string): Promise<string | null> {
  try {
    const stat = await fs.stat(resolved);
    if (stat.isDirectory()) return 'a symlink to a folder the worktree does not have';
    if (!stat.isFile()) return 'not a regular file'; // a FIFO, a socket, a device
    await fs.access(resolved, constants.R_OK);
    return null;
  } catch (err) {
    return cannotResolve(err);
  }
}

/**
 * Where a path resolves to, or why it resolves nowhere: a dangling symlink (a build's `result`
 * whose target was collected), a loop, or a folder on the way this user cannot enter (made by a
 * container as root) is the path's own state, left out like a path that leads out, not a reason to
 * fail the start.
 */
export async function resolvedTarget(source: string): Promise<string | { why: string }> {
  try {
    return await fs.realpath(source);
  } catch (err) {
    return { why: cannotResolve(err) };
  }
}

/**
 * The reason for a failed look at a link's target; an error without a system code is a fault of
 * ours (Node's `ERR_INVALID_ARG_VALUE` for a path holding a NUL also starts with E), thrown.
 */
function cannotResolve(err: unknown): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return 'its target does not exist';
  if (code === 'ELOOP') return 'a symlink loop';
  if (isSystemCode(code)) return unreadableWhy(code);
  throw err;
}
