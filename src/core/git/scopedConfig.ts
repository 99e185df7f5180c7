/**
 * Settings that would make a git command Paddock runs in the person's
 * repository reach beyond what the operation asked for, overridden for that
 * command only (runGit's `config`: `git -c`, which git 2.30 understands).
 * rebase.updateRefs would force-move the person's other branches that point
 * into the rebased commits; autoStash would stash and re-apply changes the
 * operation was told it must not touch.
 */

/**
 * A merge, a rebase or a commit ends by starting git's automatic maintenance (`git maintenance run
 * --auto`; `gc --auto` before git 2.29): a process of its own, and, once the repository holds
 * enough loose objects, a garbage collection that detaches and repacks the person's repository in
 * the background, outliving the operation and competing with the agents' git work. Paddock leaves
 * that to the person's own git commands. (It also spared a landing's fast-forward ~7 ms of a
 * 64-ms run in a 5,000-file repository: the maintenance process's start.)
 */
export const NO_AUTO_MAINTENANCE: Readonly<Record<string, string>> = {
  'maintenance.auto': 'false',
  'gc.auto': '0',
};

export const REBASE_CONFIG: Readonly<Record<string, string>> = {
  'rebase.updateRefs': 'false',
  'rebase.autoStash': 'false',
  'rebase.autoSquash': 'false',
  ...NO_AUTO_MAINTENANCE,
};

export const MERGE_CONFIG: Readonly<Record<string, string>> = {
  'merge.autoStash': 'false',
  ...NO_AUTO_MAINTENANCE,
};
