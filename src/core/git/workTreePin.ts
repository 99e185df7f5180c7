/**
 * Which folder git takes for the working tree of a linked worktree (bug 104). Git reads it from the
 * worktree's own config first: an agent that ran `git config --worktree core.worktree <elsewhere>`
 * (or `core.bare true`, with extensions.worktreeConfig) sent every git Paddock ran in its worktree
 * to another folder, or to none: a landing's `--commit-uncommitted` committed that folder's files
 * over the agent's, the safety checks' list of local changes and a check's guard read it, and a
 * cleanup captured it as the agent's work. Rather than each call site remembering, runGit names the
 * working tree itself (GIT_WORK_TREE, which wins over both settings) whenever it runs git at the
 * top of a checkout (a `.git` file or folder there): the folder git finds by itself when no such
 * setting is made, so nothing else changes.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/**
 * Commands that set up a repository of their own, where GIT_WORK_TREE means something else, or run
 * git in other repositories (`for-each-repo` runs `git -C <each>`, whose children would inherit it).
 */
const OWN_SETUP = new Set(['clone', 'init', 'worktree', 'for-each-repo']);
/** Options before the command that point git at another repository or working tree: the pin would name the wrong one. */
const ELSEWHERE = /^(-C|--git-dir|--work-tree)(=|$)/;

/** Whether this call is git's own setup, or aimed elsewhere than `cwd` by its options or its environment. */
function notAboutCwd(args: readonly string[], env: NodeJS.ProcessEnv | undefined): boolean {
  if (env?.GIT_DIR !== undefined || env?.GIT_WORK_TREE !== undefined) return true;
  let i = 0;
  while (i < args.length && args[i].startsWith('-')) {
    if (ELSEWHERE.test(args[i])) return true;
    i += args[i] === '-c' ? 2 : 1;
  }
  return OWN_SETUP.has(args[i] ?? '');
}

/**
 * `{ GIT_WORK_TREE: cwd }` (absolute: git resolves it from `cwd`) when `cwd` is the top of a
 * checkout (a `.git` file or folder there), else `{}`. The person's main checkout is pinned too:
 * a plain `git config core.worktree` an agent ran lands in the shared config, which the main
 * checkout obeys and linked worktrees do not. A file system that does not answer within `waitMs`
 * gets no pin: the git call's own timeout then bounds it, as before.
 */
export async function workTreePin(cwd: string, args: readonly string[], env: NodeJS.ProcessEnv | undefined, waitMs: number): Promise<{ GIT_WORK_TREE?: string }> {
  if (notAboutCwd(args, env)) return {};
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), waitMs);
  });
  const isCheckoutTop = fs.lstat(path.join(cwd, '.git')).then(
    (s) => s.isFile() || s.isDirectory(),
    () => false,
  );
  try {
    return (await Promise.race([isCheckoutTop, late])) ? { GIT_WORK_TREE: path.resolve(cwd) } : {};
  } finally {
    clearTimeout(timer);
  }
}
