/**
 * Settings that would make a git command Paddock runs in the person's
 * repository reach beyond what the operation asked for, overridden for that
 * command only (runGit's `config`: `git -c`, which git 2.30 understands).
 * rebase.updateRefs would force-move the person's other branches that point
 * into the rebased commits; autoStash would stash and re-apply changes the
 * operation was told it must not touch.
 */
export const REBASE_CONFIG: Readonly<Record<string, string>> = {
  'rebase.updateRefs': 'false',
  'rebase.autoStash': 'false',
  'rebase.autoSquash': 'false',
};

export const MERGE_CONFIG: Readonly<Record<string, string>> = {
  'merge.autoStash': 'false',
};
