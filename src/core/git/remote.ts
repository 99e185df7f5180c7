/** Remotes: which one a branch goes to, its URL, and a push that never forces. */
import { constants as fsConstants, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { failure, usageError } from '../common/errors';
import { firstLine, runGit } from './runGit';

export async function remoteNames(repo: string): Promise<string[]> {
  return (await runGit(['remote'], { cwd: repo })).stdout.split('\n').map((l) => l.trim()).filter(Boolean);
}

/**
 * The remote to push to: `wanted` (which must exist), else the base branch's
 * upstream remote, else `origin`, else the only remote. Null when the
 * repository has none.
 */
export async function chooseRemote(repo: string, baseBranch: string | null, wanted?: string): Promise<string | null> {
  const names = await remoteNames(repo);
  if (wanted !== undefined) {
    if (!names.includes(wanted)) throw usageError(`${repo} has no remote named '${wanted}'${names.length ? ` (it has ${names.join(', ')})` : ''}.`);
    return wanted;
  }
  if (baseBranch) {
    const upstream = await runGit(['config', '--get', `branch.${baseBranch}.remote`], { cwd: repo, allowFailure: true });
    const name = upstream.stdout.trim();
    if (upstream.code === 0 && names.includes(name)) return name;
  }
  if (names.includes('origin')) return 'origin';
  return names.length === 1 ? names[0] : null;
}

export async function remoteUrl(repo: string, remote: string): Promise<string> {
  const res = await runGit(['remote', 'get-url', '--', remote], { cwd: repo, allowFailure: true });
  return res.code === 0 ? res.stdout.trim() : '';
}

/** Pushes local `branch` to the same name on `remote`; a rejection (never forced) throws saying so. */
export async function pushBranch(repo: string, remote: string, branch: string): Promise<void> {
  const ref = `refs/heads/${branch}`;
  // Only that branch: push.followTags would publish the person's tags on its commits as well.
  const res = await runGit(['push', '--porcelain', '--no-follow-tags', '--', remote, `${ref}:${ref}`], { cwd: repo, allowFailure: true });
  if (res.code === 0) return;
  const rejected = res.stdout.split('\n').find((l) => l.startsWith('!'));
  const why = rejected ? rejected.split('\t').pop()?.trim() || 'rejected' : ((await prePushRefusal(repo, res.stderr)) ?? (firstLine(res.stderr) || `exit code ${res.code}`));
  throw failure(`The push of ${branch} to ${remote} failed (${why}); nothing was changed.`, 'PUSH_REJECTED');
}

/**
 * A push the person's pre-push hook refused: git reports no ref as rejected (the porcelain output is
 * empty) and says only *failed to push some refs*, which does not name the hook. The hook's own
 * lines are not quoted: it is given the remote's URL, credentials and all, and may print it.
 */
async function prePushRefusal(repo: string, stderr: string): Promise<string | null> {
  if (!/failed to push some refs/.test(stderr)) return null;
  const hook = path.resolve(repo, (await runGit(['rev-parse', '--git-path', 'hooks/pre-push'], { cwd: repo })).stdout.trim());
  const runs = await fs.access(hook, fsConstants.X_OK).then(() => true, () => false);
  return runs ? `refused by the repository's pre-push hook ${hook}` : null;
}
