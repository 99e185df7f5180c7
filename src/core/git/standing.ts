/**
 * Where an agent's work stands against its base: commits ahead and behind,
 * the size of its committed diff (files, lines added and removed, against the
 * merge base), whether its worktree has uncommitted changes, and whether its
 * commits are already on the base. Read-only git calls (no index.lock taken),
 * each through runGit with its timeout.
 */
import { flaggedEdits } from './flaggedFiles';
import { readHeadFromFiles } from './headFiles';
import { runGit } from './runGit';
import { isCommitId } from './commitId';

export interface Standing {
  /** The base as a person names it ("main"), what the figures are against. */
  readonly baseName: string;
  /** Commits on the agent's branch that the base does not have. */
  readonly ahead: number;
  /** Commits on the base that the agent's branch does not have. */
  readonly behind: number;
  /** The committed diff against the merge base. */
  readonly files: number;
  readonly insertions: number;
  readonly deletions: number;
  /** Files with uncommitted work in the worktree: staged, unstaged, untracked, and hidden edits to flagged files. */
  readonly uncommittedFiles: number;
  /** The agent made commits and every one of them is reachable from the base. */
  readonly merged: boolean;
}

/** The commits the figures are computed from; equal tips give equal figures (except uncommitted). */
export interface StandingTips {
  /** The worktree's HEAD. */
  readonly head: string;
  /** The base's commit now. */
  readonly baseTip: string;
  readonly baseName: string;
  /** Where the agent's branch started (its record's baseSha); null when unknown. */
  readonly startedAt: string | null;
}

/** Read-only git calls must not take index.lock to refresh the index. */
export const READ_ONLY_GIT = { GIT_OPTIONAL_LOCKS: '0' };

/** The base's commit and its short name, resolved in the main repository (where `HEAD` means its checked-out branch). */
export async function resolveBase(repo: string, base: string): Promise<{ tip: string; name: string }> {
  const [out, named] = await Promise.all([
    runGit(['rev-parse', '--verify', '--end-of-options', `${base}^{commit}`], { cwd: repo, env: READ_ONLY_GIT }),
    runGit(['rev-parse', '--abbrev-ref', base], { cwd: repo, env: READ_ONLY_GIT, allowFailure: true }),
  ]);
  const tip = out.stdout.trim();
  const name = named.code === 0 ? named.stdout.trim() : '';
  return { tip, name: !name || name === 'HEAD' || isCommitId(name) ? (base === 'HEAD' ? tip.slice(0, 8) : base) : name };
}

/**
 * The worktree's HEAD and its own git directory (where its index lives). Read from
 * the files git keeps (`.git` → gitdir, HEAD, the branch's loose or packed ref): a
 * refresh of many agents with nothing changed then starts no process at all. Any
 * other layout (a reftable, a symlinked ref) is asked of git, in one call.
 */
export async function worktreeHead(worktree: string): Promise<{ head: string; gitDir: string }> {
  const fast = await readHeadFromFiles(worktree).catch(() => undefined);
  if (fast) return { head: fast.head, gitDir: fast.gitDir };
  const out = await runGit(['rev-parse', 'HEAD', '--absolute-git-dir'], { cwd: worktree, env: READ_ONLY_GIT });
  const [head, gitDir] = out.stdout.trim().split('\n');
  return { head, gitDir };
}

export async function computeStanding(worktree: string, tips: StandingTips): Promise<Standing> {
  // Three independent git processes, at once.
  const [counts, size, uncommittedFiles] = await Promise.all([
    runGit(['rev-list', '--left-right', '--count', `${tips.baseTip}...${tips.head}`], { cwd: worktree, env: READ_ONLY_GIT }),
    // A three-dot diff is against the merge base: the agent's own changes, not what the base gained since.
    diffSize(worktree, tips.baseTip, tips.head),
    uncommittedCount(worktree),
  ]);
  const [behind, ahead] = counts.stdout.trim().split(/\s+/).map((n) => Number.parseInt(n, 10));
  // Merged: nothing ahead, and the branch moved from where it started (an agent with no commits is not "merged").
  const merged = ahead === 0 && tips.startedAt !== null && tips.head !== tips.startedAt;
  return { baseName: tips.baseName, ahead, behind, ...size, uncommittedFiles, merged };
}

async function diffSize(worktree: string, base: string, head: string): Promise<{ files: number; insertions: number; deletions: number }> {
  // No merge base (unrelated histories): git refuses, and there is no diff of the agent's own to count.
  const out = await runGit(['diff', '--numstat', '-z', '--no-color', '--no-ext-diff', '--no-renames', `${base}...${head}`, '--'], { cwd: worktree, env: READ_ONLY_GIT, allowFailure: true });
  if (out.code !== 0) return { files: 0, insertions: 0, deletions: 0 };
  let files = 0;
  let insertions = 0;
  let deletions = 0;
  // -z: "added\tdeleted\tpath\0" per file; binary files say "-\t-".
  for (const entry of out.stdout.split('\0')) {
    const m = /^(\d+|-)\t(\d+|-)\t/.exec(entry);
    if (!m) continue;
    files++;
    if (m[1] !== '-') insertions += Number(m[1]);
    if (m[2] !== '-') deletions += Number(m[2]);
  }
  return { files, insertions, deletions };
}

/**
 * Files with uncommitted work: `git status`'s entries, and the edits to files flagged
 * assume-unchanged or skip-worktree that status hides (the same ones landing asks about). The
 * index file tells whether any entry is flagged, so almost always no second process runs.
 */
async function uncommittedCount(worktree: string): Promise<number> {
  const [out, hidden] = await Promise.all([
    runGit(['status', '--porcelain', '-z', '--untracked-files=normal'], { cwd: worktree, env: READ_ONLY_GIT }),
    flaggedEdits(worktree, undefined, READ_ONLY_GIT),
  ]);
  let count = hidden.length;
  const fields = out.stdout.split('\0');
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i];
    if (f.length < 4) continue;
    count++;
    // A rename or copy is followed by its original path as a field of its own.
    if (f[0] === 'R' || f[0] === 'C') i++;
  }
  return count;
}
