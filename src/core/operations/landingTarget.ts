/**
 * Which branch an agent's work lands on: `--into` (never the agent's own branch), else its base when the
 * base names a local branch as git reads it (`main`, `heads/main`, `refs/heads/main`, or
 * `origin/main` whose local `main` exists), else — for a base of `HEAD` — the branch checked out in
 * the main worktree now. Anything else (a commit, a tag) needs `--into`.
 *
 * A pull request and an update have no `--into`: they go to (or come from) the
 * remote's branch a base like `origin/main` names, with or without a local `main`.
 */
import { usageError } from '../common/errors';
import { baseRefName, branchTip, checkBranchName, currentBranch, remoteNames, runGit } from '../git';
import { branchRefEnd, sharedGitDir } from '../git/headFiles';
import { isCommitId } from '../git/commitId';
import type { JobRecord } from '../store/schema';

/** What a command without `--into` says when the base names no branch: its own way out, not an option it lacks. */
export type TargetHint = 'into' | 'pull request' | 'update';

export async function landingTarget(job: JobRecord, into?: string, hint: TargetHint = 'into'): Promise<string> {
  if (into !== undefined) return namedTarget(job, into);
  const base = job.base ?? 'HEAD';
  if (base === 'HEAD') {
    const branch = await currentBranch(job.repo);
    if (branch) return branch;
    throw usageError(`Agent ${job.id} started from HEAD and ${job.repo} has no branch checked out now; ${wayOut(hint)}.`);
  }
  // Read by the rule the agent's start read its base's commit by: `heads/main` is main, and a tag that shares a branch's name is the tag.
  const full = await baseRefName(job.repo, base);
  const local = full?.startsWith('refs/heads/') ? full.slice('refs/heads/'.length) : null;
  // A branch named HEAD (only `update-ref` makes one): git's commands read HEAD as the checked-out commit, and --into refuses it too.
  if (local === 'HEAD') throw usageError(`Git reads agent ${job.id}'s base '${base}' as branch HEAD, which is no branch to land on; ${wayOut(hint)}.`);
  if (local !== null && (await branchTip(job.repo, local).catch(() => null)) !== null) return local;
  if (full !== null && !full.startsWith('refs/remotes/')) throw usageError(await notABranch(job, base, full, hint));
  const named = await remoteBaseName(job);
  if (named && (await branchTip(job.repo, named.branch).catch(() => null)) !== null) return named.branch;
  throw usageError(`Agent ${job.id}'s base '${base}' is not a local branch; ${wayOut(hint)}.`);
}

/**
 * `--into`: a local branch other than the agent's own, named short (`main`) or in full
 * (`refs/heads/main`). HEAD, a tag, a remote-tracking branch or a commit is refused by name, so the
 * person is told what they gave instead of "no such branch".
 */
async function namedTarget(job: JobRecord, into: string): Promise<string> {
  if (into === 'HEAD') throw usageError(`--into takes a branch's name, not HEAD; leave --into out to land agent ${job.id} on its base.`);
  const branch = await fullOrLiteral(job.repo, into);
  // Its own branch has every commit of itself: git would only say there is nothing to land.
  if (branch === job.branch) throw usageError(`Agent ${job.id} cannot be landed on its own branch ${branch}; name another branch with --into, or leave --into out to land it on its base.`);
  await checkBranchName(job.repo, branch);
  if ((await branchTip(job.repo, branch)) === null) throw usageError(await noBranchProblem(job.repo, into));
  const end = await branchEnd(job.repo, branch);
  if (end === null) throw usageError(`Branch ${branch} is a symbolic ref to no local branch; --into takes a local branch's name.`);
  if (end === job.branch) throw usageError(`Agent ${job.id} cannot be landed on its own branch ${end} (${branch} leads to it); name another branch with --into.`);
  return end;
}

/**
 * The branch `branch` ends at when it is a symbolic ref (`git symbolic-ref refs/heads/alias
 * refs/heads/main`), as git follows it: moving alias moves main, so the landing checks and updates
 * main's worktree, not alias's (git counts none). Itself when it is no symbolic ref; null when it
 * leads out of `refs/heads/`. From git's files when they can say, else as git lists it.
 */
async function branchEnd(repo: string, branch: string): Promise<string | null> {
  const common = await sharedGitDir(repo);
  const fromFiles = common === null ? undefined : await branchRefEnd(common, `refs/heads/${branch}`).catch(() => undefined);
  const end = fromFiles ?? (await baseRefName(repo, `refs/heads/${branch}`));
  return end?.startsWith('refs/heads/') ? end.slice('refs/heads/'.length) : null;
}

/**
 * `refs/heads/X` is branch X, unless a branch is literally named `refs/heads/X` (refs/heads/refs/heads/X):
 * `git switch` takes that one, git's other commands call the name ambiguous. With both branches there,
 * either choice may land on the branch the person did not mean: refused, naming a way to each.
 */
async function fullOrLiteral(repo: string, into: string): Promise<string> {
  if (!into.startsWith('refs/heads/')) return into;
  const short = into.slice('refs/heads/'.length);
  const [full, literal] = await Promise.all([branchTip(repo, short).catch(() => null), branchTip(repo, into).catch(() => null)]);
  if (full !== null && literal !== null) {
    throw usageError(`--into ${into} is ambiguous in ${repo}: it names branch ${short}, and a branch is named '${into}' too; say --into ${sayable(short)} for the first, --into ${sayable(into)} for the second.`);
  }
  return full === null && literal !== null ? into : short;
}

/**
 * How to name `branch` to --into: its name, or in full when its name itself begins `refs/heads/` —
 * that name alone is read as the branch after it (`fullOrLiteral`), or refused as ambiguous.
 */
function sayable(branch: string): string {
  return branch.startsWith('refs/heads/') ? `refs/heads/${branch}` : branch;
}

/** The refusal of a name that is no local branch, saying what it names instead when it names something. */
async function noBranchProblem(repo: string, name: string): Promise<string> {
  const res = await runGit(['rev-parse', '--verify', '--quiet', '--symbolic-full-name', '--end-of-options', name], { cwd: repo, allowFailure: true });
  const full = res.stdout.trim();
  if (res.code !== 0) return `There is no branch '${name}' in ${repo}.`;
  // `heads/main`: git reads it as refs/heads/main, which --into takes by its name.
  if (full.startsWith('refs/heads/')) {
    const branch = full.slice('refs/heads/'.length);
    return `There is no branch '${name}' in ${repo}; git reads '${name}' as branch ${branch} — say --into ${sayable(branch)}.`;
  }
  const what = full.startsWith('refs/tags/') ? 'a tag' : full.startsWith('refs/remotes/') ? 'a remote-tracking branch' : 'a commit';
  return `'${name}' names ${what}, not a local branch; --into takes a local branch's name.`;
}

/**
 * The refusal of a base git reads as a tag (or another ref) rather than a branch. Where a branch of the
 * same name exists too, "not a local branch" would be untrue of the name: it says what git reads instead.
 */
async function notABranch(job: JobRecord, base: string, full: string, hint: TargetHint): Promise<string> {
  if ((await branchTip(job.repo, base).catch(() => null)) === null) return `Agent ${job.id}'s base '${base}' is not a local branch; ${wayOut(hint)}.`;
  const read = full.startsWith('refs/tags/') ? `tag ${full.slice('refs/tags/'.length)}` : full;
  return `Git reads agent ${job.id}'s base '${base}' as ${read} (there is a branch ${base} too); ${shadowWayOut(full, hint)}.`;
}

function wayOut(hint: TargetHint): string {
  if (hint === 'into') return 'say which branch to land on with --into BRANCH';
  if (hint === 'pull request') return 'a pull request needs a branch to go into: check out or create that branch, then try again';
  return 'an update needs a branch to bring in: check out or create that branch, then try again';
}

/**
 * The way out when git reads the base as another ref (`full`: a tag, most often) beside a branch of
 * its name: with no --into, only that ref's going makes git read the name as the branch (checking
 * the branch out changes nothing).
 */
function shadowWayOut(full: string, hint: TargetHint): string {
  if (hint === 'into') return wayOut(hint);
  const tag = full.startsWith('refs/tags/') ? full.slice('refs/tags/'.length) : null;
  return `delete or rename ${tag === null ? full : `tag ${tag}`} (\`${tag === null ? `git update-ref -d ${full}` : `git tag -d ${tag}`}\`), then try again`;
}

export interface RemoteBranch {
  remote: string;
  /** The branch's name on the remote. */
  branch: string;
  /** The remote-tracking ref (`refs/remotes/origin/main`) and its commit. */
  ref: string;
  tip: string;
}

/** The remote and branch a base like `origin/main` or `refs/remotes/origin/main` names (whether or not it exists); else null. */
export async function remoteBaseName(job: JobRecord): Promise<{ remote: string; branch: string } | null> {
  const given = job.base ?? 'HEAD';
  // By git's rule too, when the remote-tracking branch is there: `remotes/origin/main` is origin's main.
  const full = given === 'HEAD' ? null : await baseRefName(job.repo, given);
  const base = (full?.startsWith('refs/remotes/') ? full : given).replace(/^refs\/remotes\//, '');
  // The longest remote name first: a remote may be called `team/origin`.
  const remotes = (await remoteNames(job.repo)).sort((a, b) => b.length - a.length);
  const remote = remotes.find((r) => base.startsWith(`${r}/`) && base.length > r.length + 1);
  const branch = remote ? base.slice(remote.length + 1) : 'HEAD';
  // `origin/HEAD` left unfollowed (a remote's HEAD that is no symbolic ref, or none): it names no branch of the remote.
  return remote && branch !== 'HEAD' ? { remote, branch } : null;
}

/** The remote's branch the base names, when its remote-tracking ref exists; else null. */
export async function remoteBranchOf(job: JobRecord): Promise<RemoteBranch | null> {
  const named = await remoteBaseName(job);
  if (!named) return null;
  const ref = `refs/remotes/${named.remote}/${named.branch}`;
  const res = await runGit(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], { cwd: job.repo, allowFailure: true });
  const tip = res.stdout.trim();
  return res.code === 0 && isCommitId(tip) ? { ...named, ref, tip } : null;
}
