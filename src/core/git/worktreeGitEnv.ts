/**
 * How to run a read-only git command on an agent's worktree so that it reads `repo`'s worktree and
 * nothing else. git run in a worktree whose link the agent cut (`rm .git`, a `.git` leading nowhere,
 * `git init` in its root: bug 156) finds no repository, the agent's own, or that of a checkout the
 * worktree lies in — and reads (or writes objects into) that one: Compare Attempts, a check's save,
 * the Agents tree's changed files and Open Changes said *bad object* or listed another repository's
 * files. Such a worktree is read through `repo`'s registration of it.
 */
import { failure } from '../common/errors';
import { worktreeLink } from './worktreeLink';
import { registrationsOf } from './worktreeRegistration';
import { registrationNamedBy } from './registrationNamed';
import { sharedGitDir } from './headFiles';
import { fsPath } from './pathBytes';
import { printable } from '../common/printable';

/**
 * Nothing for a worktree linked to `repo`; otherwise `GIT_DIR` (the registration) and `GIT_WORK_TREE`:
 * nothing is written to the worktree (landing and cleanup write its link again; a read does not).
 * Throws one sentence when `repo` has no record of the worktree. `branch`: the agent's — a
 * registration that lost track is read only when provably its own (registrationNamed.ts).
 */
export async function worktreeGitEnv(repo: string, worktree: string, branch?: string | null): Promise<Record<string, string>> {
  if ((await worktreeLink(repo, worktree)) === 'linked') return {};
  const [own] = await registrationsOf(repo, worktree);
  // A registration that lost track of the folder (no `gitdir`) is still the one its `.git` names.
  const common = own ? null : await sharedGitDir(repo);
  const named = common === null ? null : await registrationNamedBy(common, worktree, branch);
  const registration = own ?? (named && 'adminDir' in named ? named.adminDir : undefined);
  // Its name by its bytes (`worktrees/bad\xff`): an environment reaches git as UTF-8, where that is
  // `worktrees/bad\ufffd`, perhaps a person's registration, read as the agent's (bug 200's class).
  if (registration && typeof fsPath(registration) !== 'string') {
    throw failure(`The worktree ${printable(worktree)} no longer leads to its repository ${repo} (its .git was changed) and its registration there, ${printable(registration)}, is named by bytes that are not text, which git cannot be pointed at; its files cannot be read as the agent's work until its .git names it (or it is renamed).`);
  }
  if (!registration) throw failure(`The worktree ${worktree} no longer leads to its repository ${repo} (its .git was changed) and ${repo} has no record of it; its files cannot be read as the agent's work.`);
  return { GIT_DIR: registration, GIT_WORK_TREE: worktree };
}
