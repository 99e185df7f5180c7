/**
 * Settings that would make a git command Paddock runs in the person's
 * repository reach beyond what the operation asked for, overridden for that
 * command only (runGit's `config`: `git -c`, which git 2.30 understands).
 * rebase.updateRefs would force-move the person's other branches that point
 * into the rebased commits; autoStash would stash and re-apply changes the
 * operation was told it must not touch.
 */

/**
 * Whether a file changed is judged from its stat data against the index, and three settings let git
 * skip that look: `core.ignoreStat` (every entry git writes is marked assume-unchanged: edits are
 * never seen), `core.trustctime=false` and `core.checkStat=minimal` (a same-size edit whose old
 * mtime was put back, as `cp -p` or `rsync -t` do, matches). Every git Paddock runs looks at the
 * disk with git's defaults, whatever the repository says: a capture, a status or a commit of the
 * agent's work must see every edit (measured: with any of the three, a cleanup's snapshot kept the
 * old content of edited files and said the work was saved). A fourth skips even the stat:
 * `core.fsmonitor`, whose hook or daemon tells git which files changed; one that lags, crashed or
 * lies hid every edit it did not report (measured, bug 104: the worktree removed, its edits gone).
 */
export const STAT_CHECKED: Readonly<Record<string, string>> = {
  'core.fsmonitor': 'false',
  'core.ignoreStat': 'false',
  'core.trustctime': 'true',
  'core.checkStat': 'default',
};

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
