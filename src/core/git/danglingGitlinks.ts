/**
 * Nested repositories a landing would record as bare gitlinks. An agent that
 * runs `git init sub` and commits inside it leaves a folder git cannot take
 * as files: `git add -A` records only the nested HEAD's commit id (mode
 * 160000), and without a `.gitmodules` entry nobody can ever fetch it — the
 * landing would report files landed that never arrive. The rule is git's own:
 * a gitlink the landing adds or changes that the `.gitmodules` of the landed
 * tree does not name (a registered submodule lands as it always did).
 */
import { failure, type PaddockError } from '../common/errors';
import { fewPaths } from './landingConflict';
import { configEntries } from './configEntries';
import { runGit } from './runGit';
import { GITLINK_MODE, treeChanges, type PathChange } from './treeChanges';

/** The submodule paths `.gitmodules` names in `tree` (none when it has no such file). */
async function registeredSubmodules(repo: string, tree: string): Promise<Set<string>> {
  const res = await runGit(['config', '-z', '--blob', `${tree}:.gitmodules`, '--get-regexp', '^submodule\\..*\\.path$'], { cwd: repo, allowFailure: true, names: true });
  return new Set(configEntries(res.stdout).flatMap(({ value }) => (value ? [value] : [])));
}

/**
 * The gitlinks `to` adds or changes against `from` that its `.gitmodules` does not register, sorted.
 * `changes`: `treeChanges(repo, from, to)` when the caller reads it for another check too.
 */
export async function danglingGitlinks(repo: string, from: string, to: string, changes?: Promise<PathChange[]>): Promise<string[]> {
  const gitlinks = (await (changes ?? treeChanges(repo, from, to))).filter((c) => c.newMode === GITLINK_MODE).map((c) => c.path);
  if (gitlinks.length === 0) return [];
  const registered = await registeredSubmodules(repo, to);
  return gitlinks.filter((p) => !registered.has(p)).sort();
}

export const NESTED_REPOSITORY_CODE = 'NESTED_REPOSITORY';

/** The one sentence for `danglingGitlinks`' answer, found in `where` (a worktree, or "Agent x's work"). */
export function nestedRepositoryError(where: string, repos: readonly string[]): PaddockError {
  const one = repos.length === 1;
  const names = fewPaths(repos.map((p) => `${p}/`));
  return failure(
    `${names} in ${where} ${one ? 'is a git repository of its own' : 'are git repositories of their own'}; ${one ? 'its' : 'their'} files cannot be landed — commit them to the agent's branch as files, or make ${one ? 'it a submodule' : 'them submodules'}; nothing was changed.`,
    NESTED_REPOSITORY_CODE,
  );
}
