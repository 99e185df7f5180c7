/**
 * Which folder git takes for the working tree of a linked worktree (bug 104). Git reads it from the
 * worktree's own config first: an agent that ran `git config --worktree core.worktree <elsewhere>`
 * (or `core.bare true`, with extensions.worktreeConfig) sent every git Paddock ran in its worktree
 * to another folder, or to none: a landing's `--commit-uncommitted` committed that folder's files
 * over the agent's, the safety checks' list of local changes and a check's guard read it, and a
 * cleanup captured it as the agent's work. Rather than each call site remembering, runGit names the
 * working tree itself (GIT_WORK_TREE, which wins over both settings) whenever it runs git at the
 * top of a linked worktree or nested checkout (a `.git` *file* there): the folder git finds by
 * itself when no such setting is made, so nothing else changes.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/** Commands that set up a repository of their own, where GIT_WORK_TREE means something else. */
const OWN_SETUP = new Set(['clone', 'init', 'worktree']);

/**
 * `{ GIT_WORK_TREE: cwd }` when `cwd` is the top of a checkout whose `.git` is a file, else `{}`.
 * A file system that does not answer within `waitMs` gets no pin: the git call's own timeout then
 * bounds it, as before.
 */
export async function workTreePin(cwd: string, command: string, waitMs: number): Promise<{ GIT_WORK_TREE?: string }> {
  if (OWN_SETUP.has(command)) return {};
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), waitMs);
  });
  const isFile = fs.lstat(path.join(cwd, '.git')).then(
    (s) => s.isFile(),
    () => false,
  );
  try {
    return (await Promise.race([isFile, late])) ? { GIT_WORK_TREE: cwd } : {};
  } finally {
    clearTimeout(timer);
  }
}
