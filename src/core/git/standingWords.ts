/**
 * An agent's standing in words, one wording for the tree and the CLI:
 * "3 commits ahead, 2 behind main · 4 files +120 −8", "uncommitted changes",
 * "merged into main", "applied to workspace", "pull request #12 open" (or
 * "branch pushed, no pull request opened" when only the branch was pushed).
 * A landing in the record says what was done; the figures say what is.
 */
import type { JobRecord, Landing } from '../store/schema';
import type { Standing } from './standing';

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** "#12" from a pull/merge request URL (GitHub, GitLab, Bitbucket, Azure DevOps), else "". */
export function pullRequestNumber(url: string | null): string {
  const m = url ? /\/(?:pull|pulls|merge_requests|pullrequest|pullrequests)\/(\d+)(?:[/?#]|$)/.exec(url) : null;
  return m ? `#${m[1]}` : '';
}

/** Said of a landing a later run found done and recorded: its own run was stopped (killed) before it recorded it. */
export const FOUND_LATER_WORDS = 'stopped before it was recorded; found later';

export function landingWords(landing: Landing): string {
  const words = landingKindWords(landing);
  return landing.foundLater ? `${words} (${FOUND_LATER_WORDS})` : words;
}

function landingKindWords(landing: Landing): string {
  switch (landing.kind) {
    case 'apply':
      return 'applied to workspace';
    case 'pr': {
      // Without a pull request's own URL, none was opened: the branch was pushed and a compare page (if any) given.
      const n = pullRequestNumber(landing.url);
      // One found later cannot say whether its stopped run had gh open one: only that the branch was pushed.
      return n ? `pull request ${n} open` : landing.foundLater ? 'branch pushed' : 'branch pushed, no pull request opened';
    }
    default:
      return `merged into ${landing.into}`;
  }
}

/** The figures alone, without the landing ("" when there is nothing to say). */
export function figureWords(s: Standing): string {
  const parts: string[] = [];
  if (s.merged) parts.push(`merged into ${s.baseName}`);
  else if (s.ahead > 0 && s.behind > 0) parts.push(`${plural(s.ahead, 'commit', 'commits')} ahead, ${s.behind} behind ${s.baseName}`);
  else if (s.ahead > 0) parts.push(`${plural(s.ahead, 'commit', 'commits')} ahead of ${s.baseName}`);
  else if (s.behind > 0) parts.push(`${plural(s.behind, 'commit', 'commits')} behind ${s.baseName}`);
  if (s.files > 0 && !s.merged) parts.push(`${plural(s.files, 'file', 'files')} +${s.insertions} −${s.deletions}`);
  if (s.uncommittedFiles > 0) parts.push('uncommitted changes');
  return parts.join(' · ');
}

/** Everything known about where the work stands: the landing first, then the figures that still add something. */
export function standingWords(job: Pick<JobRecord, 'landing'>, standing: Standing | undefined): string {
  const landed = job.landing ? landingWords(job.landing) : '';
  if (!standing) return landed;
  // A landed agent's "merged" figure repeats the landing; commits made since, or uncommitted work, do not.
  const figures = !landed || standing.ahead > 0 ? figureWords(standing) : standing.uncommittedFiles > 0 ? 'uncommitted changes' : '';
  return [landed, figures].filter(Boolean).join(' · ');
}
