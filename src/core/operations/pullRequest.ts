/**
 * Create Pull Request: pushes the agent's branch (never forced) to a remote —
 * by default the base's upstream remote — then opens the pull request with
 * the GitHub CLI when it is installed and logged in, or gives the host's
 * compare page to open one (GitHub, GitLab, Bitbucket, Azure DevOps).
 */
import { failure, usageError } from '../common/errors';
import { chooseRemote, compareUrl, createPullRequestWithGh, githubRepoArg, isAncestor, parseRemoteUrl, pushBranch, remoteUrl, runGit } from '../git';
import type { JobRecord } from '../store/schema';
import type { OperationContext } from './context';
import { isPrintable } from '../common/printable';
import { agentBranchTip, prepareAgentWork, readAgentWorkEarly, titleLine, type LandingChoices } from './landingPrep';
import { landingTarget, remoteBranchOf } from './landingTarget';
import { earlierPush, noteOpenFailed, notePushed, notePushFailed, notePushStarting } from './pushedEarlier';
import { recordLanding } from './recordLanding';
import { landBlocker } from './rules';
import { settlingOnError } from '../common/early';
import { refuseDroppedBase } from './droppedBaseCheck';

export interface PullRequestRequest extends LandingChoices {
  remote?: string;
  draft?: boolean;
  title?: string;
  /** Aborted by a held interrupt (the CLI's Ctrl-C): a push not begun yet is not begun; one under way finishes. */
  abort?: AbortSignal;
}

export interface PullRequestReport {
  job: JobRecord;
  remote: string;
  base: string;
  /** The pull request's URL (opened by gh), or the compare page to open one, or null for an unknown host. */
  url: string | null;
  /** True when gh opened the pull request. */
  opened: boolean;
  /** Why gh was not asked though the host may be GitHub's (one sentence): a server on a port of its own. */
  ghNotUsed?: string;
  /** Pushed by an earlier run that was stopped before it recorded it: recorded by this one, not pushed again. */
  earlier?: true;
  /** With `earlier`: whether the remote's base (as last fetched) has every commit of it (merged there). */
  baseHasIt?: boolean;
}

/** GitHub's limit on a pull request's title. */
const MAX_TITLE = 256;

/** Why `title`, given by the person, cannot be a pull request's title, or null when it can (the CLI and the window ask this one rule). */
export function pullRequestTitleProblem(title: string): string | null {
  if (title.trim() === '') return 'A pull request needs a title (without one given, the agent\'s title is used).';
  if (!isPrintable(title)) return 'A pull request\'s title is one line of printable text (no line breaks, tabs or control characters).';
  if (title.length > MAX_TITLE) return `A pull request's title has at most ${MAX_TITLE} characters (this one has ${title.length}).`;
  return null;
}

export async function pullRequestLocked(ctx: OperationContext, id: string, req: PullRequestRequest): Promise<PullRequestReport> {
  const titleProblem = req.title === undefined ? null : pullRequestTitleProblem(req.title);
  if (titleProblem) throw usageError(titleProblem);
  let job = await ctx.store.read(id);
  const blocked = landBlocker(job);
  if (blocked) throw usageError(blocked);
  // Whether the worktree holds uncommitted work is read meanwhile (read-only; asked in its place).
  const uncommitted = readAgentWorkEarly(job, req);
  const { base, remote } = await settlingOnError([uncommitted], async () => {
    const { base, baseRemote } = await pullRequestBase(job);
    const remote = await chooseRemote(job.repo, base, req.remote ?? baseRemote);
    if (remote === null) throw failure(`${job.repo} has no remote to push to (add one with git remote add NAME URL); nothing was pushed.`, 'NO_REMOTE');
    return { base, remote };
  });
  // Commits the base lost since the agent started would be proposed again as the agent's: refused before the agent is stopped or anything pushed.
  // The local branch too: a commit dropped from it before it was ever pushed is still on the agent's branch (bug 217).
  // Not what the remote's base still has, which the pull request does not propose.
  const against = await proposedAgainst(job.repo, remote, base);
  const remoteTracking = against.find((ref) => ref.startsWith('refs/remotes/'));
  const refuseDropped = async (source?: string): Promise<string | null> => {
    let judged: string | null = null;
    for (const ref of against) {
      const unlessIn = ref === remoteTracking ? undefined : remoteTracking;
      judged = await refuseDroppedBase(job, ref.replace(/^refs\/(remotes|heads)\//, ''), 'a pull request', { ref, how: 'strict', unlessIn, source });
    }
    return judged;
  };
  const judged = await refuseDropped();
  job = await prepareAgentWork(ctx.store, job, req, { uncommitted, log: (m) => ctx.log(m) });
  const head = await agentBranchTip(job);
  // Asked again of the tip that is pushed when the stop or the commit of the agent's work moved it (bug 215).
  if (against.length > 0 && head !== judged) await refuseDropped(head);
  const branch = job.branch!;
  const holder = await baseHoldingTip(job.repo, head, remote, base);
  const remoteBase = `refs/remotes/${remote}/${base}`;
  // This very pull request, pushed by a run stopped before it recorded it: recorded, never pushed again
  // (the host may have squash-merged it and deleted its branch). Without the line saying its push
  // returned, only the remote's base proves it (never the local one, which may hold unpushed commits).
  const earlier = await earlierPush(ctx, job, remote, base, head);
  if (earlier === 'pushed' || (earlier === 'traced' && holder === remoteBase)) {
    const link = compareUrl(await remoteUrl(job.repo, remote), branch, base);
    ctx.log(`agent ${id}: ${branch} was pushed to ${remote} by a pull request stopped before it was recorded; recorded now`);
    job = await recordLanding(ctx.store, id, { kind: 'pr', into: `${remote}/${base}`, commit: head, url: link, branchHead: head, foundLater: true });
    return { job, remote, base, url: link, opened: false, earlier: true, baseHasIt: holder === remoteBase };
  }
  if (holder !== null) {
    throw failure(`${holder.replace(/^refs\/(remotes|heads)\//, '')} already has every commit of ${branch}; there is nothing to propose and nothing was pushed.`, 'NOTHING_TO_LAND');
  }
  if (req.abort?.aborted) throw failure(`Interrupted before the push of ${branch}; nothing was pushed.`);
  const generation = job.lifecycle.generation;
  await notePushStarting(ctx, id, generation, branch, remote, head);
  await pushBranch(job.repo, remote, branch).catch(async (err: unknown) => {
    await notePushFailed(ctx, id, generation, branch, remote, head);
    throw err;
  });
  await notePushed(ctx, id, generation, branch, remote, head);
  const url = await remoteUrl(job.repo, remote);
  const host = parseRemoteUrl(url);
  const gh = host === null || host.kind === 'github' ? githubRepoArg(url) : null;
  const opened =
    gh !== null && 'repo' in gh
      ? await createPullRequestWithGh(
          { repo: job.repo, branch, base, title: req.title ?? titleLine(job), body: `Work of Paddock agent ${job.id} (branch ${branch}).`, draft: req.draft ?? false, ghRepo: gh.repo },
          ctx.env,
        ).catch(async (err: unknown) => {
          await noteOpenFailed(ctx, id, generation, branch, remote, head);
          throw err;
        })
      : null;
  const link = opened ?? compareUrl(url, branch, base);
  const ghNotUsed = gh !== null && 'unusable' in gh ? gh.unusable : undefined;
  ctx.log(`agent ${id}: pushed ${branch} to ${remote}${opened ? `; pull request ${opened}` : link ? `; compare page ${link}` : ''}${ghNotUsed ? ` (${ghNotUsed})` : ''}`);
  job = await recordLanding(ctx.store, id, { kind: 'pr', into: `${remote}/${base}`, commit: head, url: link, branchHead: head });
  return { job, remote, base, url: link, opened: opened !== null, ghNotUsed };
}

/**
 * A branch whose every commit the base already has proposes nothing: the host refuses such a pull
 * request, so nothing is pushed (as a merge with nothing to land changes nothing). The base is the
 * remote's as last fetched, else the local branch. Returns the ref that has every commit, or null.
 */
async function baseHoldingTip(repo: string, head: string, remote: string, base: string): Promise<string | null> {
  for (const target of [`refs/remotes/${remote}/${base}`, `refs/heads/${base}`]) {
    const tip = await runGit(['rev-parse', '--verify', '--quiet', '--end-of-options', `${target}^{commit}`], { cwd: repo, allowFailure: true });
    if (tip.code !== 0) continue;
    return (await isAncestor(repo, head, tip.stdout.trim())) ? target : null;
  }
  return null;
}

/** What the pull request is read against: the remote's base as last fetched, and the local branch (either may have dropped a commit the agent's branch still holds); those that are there. */
async function proposedAgainst(repo: string, remote: string, base: string): Promise<string[]> {
  const found: string[] = [];
  for (const target of [`refs/remotes/${remote}/${base}`, `refs/heads/${base}`]) {
    const tip = await runGit(['rev-parse', '--verify', '--quiet', '--end-of-options', `${target}^{commit}`], { cwd: repo, allowFailure: true });
    if (tip.code === 0) found.push(target);
  }
  return found;
}

/**
 * The branch the pull request goes into: the base's local branch (its remote chosen as before), else
 * — for a base like `origin/develop` with no local `develop` — that branch on the remote it names.
 */
async function pullRequestBase(job: JobRecord): Promise<{ base: string; baseRemote?: string }> {
  try {
    return { base: await landingTarget(job, undefined, 'pull request') };
  } catch (err) {
    const remote = await remoteBranchOf(job);
    if (!remote) throw err;
    return { base: remote.branch, baseRemote: remote.remote };
  }
}
