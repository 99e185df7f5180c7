/**
 * Where an agent's work stands against its base: commits ahead and behind,
 * the size of its committed diff (files, lines added and removed, against the
 * merge base), whether its worktree has uncommitted changes, and whether its
 * commits are already on the base. Read-only git calls (no index.lock taken),
 * each through runGit with its timeout.
 */
import { readHeadFromFiles } from './headFiles';
import { ALL_SUBMODULES, READ_ONLY_GIT, runGit } from './runGit';
import { isCommitId } from './commitId';
import { settle } from '../common/early';
import { mapConcurrently } from '../common/limiter';
import { relateTips } from './tipRelations';
import { uncommittedCount, uncommittedCounts } from './uncommitted';

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
  /**
   * The agent's branch's commit (null: no such branch); not given: HEAD is taken for it. A rebase or
   * bisect stopped half-way, or any checkout off the branch, moves HEAD away from it: HEAD's figures
   * then say nothing of whether the branch's commits are on the base.
   */
  readonly branchTip?: string | null;
}

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
 * other layout (a reftable, a symlinked ref) is asked of git, in one call. `env`:
 * worktreeGitEnv's, for a worktree whose link the agent cut — its `.git` is not read at all,
 * git reads the repository's registration of it (never the agent's own repository or an outer one).
 */
export async function worktreeHead(worktree: string, env: Record<string, string> = {}): Promise<{ head: string; gitDir: string }> {
  const cut = env.GIT_DIR !== undefined;
  const fast = cut ? undefined : await readHeadFromFiles(worktree).catch(() => undefined);
  if (fast) return { head: fast.head, gitDir: fast.gitDir };
  const out = await runGit(['rev-parse', 'HEAD', '--absolute-git-dir'], { cwd: worktree, env: { ...READ_ONLY_GIT, ...env } });
  const [head, gitDir] = out.stdout.trim().split('\n');
  return { head, gitDir };
}

/**
 * One agent's standing on its own, outside a batch. For a worktree whose link the agent cut,
 * `repo` and `env` (worktreeGitEnv's): its commits are read in `repo`, its status through the
 * registration. Without them, all is read in the worktree (a linked one reads the repository).
 */
export async function computeStanding(worktree: string, tips: StandingTips, cut: { repo: string; env: Record<string, string> } | null = null): Promise<Standing> {
  // Independent git processes, at once.
  const [figures, uncommittedFiles] = await Promise.all([committedFiguresOfOne(cut?.repo ?? worktree, tips.baseTip, tips.head), uncommittedCount(worktree, cut?.env)]);
  return standingOf(tips, figures, uncommittedFiles);
}

/** One agent of a batch: its worktree and the commits its figures are computed from. */
export interface StandingRequest {
  readonly worktree: string;
  readonly tips: StandingTips;
}

/** `git status` processes of a batch: each visits its share of the worktrees (two keep both cores of a small machine busy). */
const STATUS_PROCESSES = 2;

/**
 * The standings of many agents of one repository against one base commit, with
 * five git processes for all of them: their common ancestor, one listing of the
 * commits beyond it, one diff-tree fed every pair, and two that run the
 * worktrees' statuses; where one agent at a time starts three processes each.
 * Histories the batch cannot settle alone (no common ancestor, criss-cross merge
 * bases, a failing batch) are computed agent by agent, as git itself would. One
 * agent's failure (its worktree gone) is its own: the others still get figures.
 */
export async function computeStandings(repo: string, requests: readonly StandingRequest[], concurrency: number): Promise<PromiseSettledResult<Standing>[]> {
  if (requests.length === 0) return [];
  const baseTip = requests[0].tips.baseTip;
  if (requests.some((r) => r.tips.baseTip !== baseTip)) throw new Error('computeStandings: one base commit per batch');
  const heads = [...new Set(requests.map((r) => r.tips.head))];
  const [counts, batch] = await Promise.all([
    uncommittedCounts(repo, requests.map((r) => r.worktree), STATUS_PROCESSES),
    // One head (however many agents share it) costs two processes on its own, and three in a batch.
    heads.length === 1
      ? committedFiguresOfOne(repo, baseTip, heads[0]).then((f) => new Map([[heads[0], f]]), () => undefined)
      : committedFiguresOfMany(repo, baseTip, heads).catch(() => undefined),
  ]);
  const indexed = requests.map((r, i) => ({ r, uncommitted: counts[i] }));
  return mapConcurrently(indexed, concurrency, async ({ r, uncommitted }) => {
    if (uncommitted.status === 'rejected') return uncommitted;
    const known = batch?.get(r.tips.head);
    // In the repository, whose objects hold the worktree's commits: never wherever its `.git` leads now.
    const figures = known ? { status: 'fulfilled' as const, value: known } : await settle(committedFiguresOfOne(repo, baseTip, r.tips.head));
    return figures.status === 'fulfilled' ? { status: 'fulfilled', value: standingOf(r.tips, figures.value, uncommitted.value) } : figures;
  });
}

interface DiffSize {
  readonly files: number;
  readonly insertions: number;
  readonly deletions: number;
}

const NO_DIFF: DiffSize = { files: 0, insertions: 0, deletions: 0 };

/** What the agent's commits add up to against the base. */
interface CommittedFigures {
  readonly ahead: number;
  readonly behind: number;
  readonly size: DiffSize;
}

function standingOf(tips: StandingTips, { ahead, behind, size }: CommittedFigures, uncommittedFiles: number): Standing {
  // Merged: nothing ahead, and the branch moved from where it started (an agent with no commits is not "merged"),
  // and HEAD is the branch's commit: mid-rebase HEAD is the base's tip, and the branch was said merged while none of it was.
  const onBranch = tips.branchTip === undefined || tips.branchTip === tips.head;
  const merged = onBranch && ahead === 0 && tips.startedAt !== null && tips.head !== tips.startedAt;
  return { baseName: tips.baseName, ahead, behind, ...size, uncommittedFiles, merged };
}

/** Commits only: read in the repository (`repo`), where every worktree's commits are. */
async function committedFiguresOfOne(repo: string, baseTip: string, head: string): Promise<CommittedFigures> {
  const [counts, size] = await Promise.all([
    runGit(['rev-list', '--left-right', '--count', `${baseTip}...${head}`], { cwd: repo, env: READ_ONLY_GIT }),
    // A three-dot diff is against the merge base: the agent's own changes, not what the base gained since.
    diffSize(repo, baseTip, head),
  ]);
  const [behind, ahead] = counts.stdout.trim().split(/\s+/).map((n) => Number.parseInt(n, 10));
  return { ahead, behind, size };
}

/**
 * Ahead, behind and the committed diff's size of each head against `baseTip`;
 * undefined (all of them) when the heads and the base share no single best
 * ancestor.
 */
async function committedFiguresOfMany(repo: string, baseTip: string, heads: readonly string[]): Promise<Map<string, CommittedFigures> | undefined> {
  const common = await runGit(['merge-base', '--all', '--octopus', baseTip, ...heads], { cwd: repo, env: READ_ONLY_GIT, allowFailure: true });
  const ancestors = common.stdout.split('\n').filter(Boolean);
  if (common.code !== 0 || ancestors.length !== 1) return undefined;
  const listing = await runGit(['rev-list', '--topo-order', '--parents', '--stdin'], {
    cwd: repo,
    env: READ_ONLY_GIT,
    input: [baseTip, ...heads, `^${ancestors[0]}`, ''].join('\n'),
  });
  const relations = relateTips(listing.stdout, baseTip, heads, ancestors[0]);
  // Each head's own changes: the diff from its merge base, all pairs through one diff-tree.
  const pairs = heads.flatMap((h) => {
    const mb = relations.get(h)?.mergeBase;
    return mb && mb !== h ? [`${h} ${mb}`] : [];
  });
  const sizes = pairs.length ? await diffSizesOf(repo, pairs) : new Map<string, DiffSize>();
  const figures = new Map<string, CommittedFigures>();
  for (const h of heads) {
    const rel = relations.get(h);
    // No entry (ambiguous merge base, or a head diff-tree did not answer for): that agent is asked alone.
    const size = rel?.mergeBase === h ? NO_DIFF : sizes.get(h);
    if (!rel?.mergeBase || !size) continue;
    figures.set(h, { ahead: rel.ahead, behind: rel.behind, size });
  }
  return figures;
}

/**
 * `git diff-tree --stdin` fed "HEAD MERGEBASE" lines: each head compared with its
 * merge base as if that were its only parent. With `--always` every head's id line
 * comes out, followed by its numstat entries.
 */
async function diffSizesOf(repo: string, pairs: readonly string[]): Promise<Map<string, DiffSize>> {
  const out = await runGit(['diff-tree', '--stdin', '--always', '-r', '-z', '--numstat', '--no-renames', '--no-ext-diff', ALL_SUBMODULES], { cwd: repo, env: READ_ONLY_GIT, input: pairs.join('\n') + '\n' });
  const entriesOf = new Map<string, string[]>();
  let entries: string[] = [];
  for (const field of out.stdout.split('\0')) {
    // An id line has no tab; a numstat entry always has two.
    if (isCommitId(field)) entriesOf.set(field, (entries = []));
    else entries.push(field);
  }
  return new Map([...entriesOf].map(([head, e]) => [head, sizeOf(e)]));
}

async function diffSize(repo: string, base: string, head: string): Promise<DiffSize> {
  // No merge base (unrelated histories): git refuses, and there is no diff of the agent's own to count.
  const out = await runGit(['diff', '--numstat', '-z', '--no-color', '--no-ext-diff', '--no-renames', ALL_SUBMODULES, `${base}...${head}`, '--'], { cwd: repo, env: READ_ONLY_GIT, allowFailure: true });
  return out.code === 0 ? sizeOf(out.stdout.split('\0')) : NO_DIFF;
}

/** The sum of `--numstat -z` entries ("added\tdeleted\tpath"; binary files say "-\t-"). */
function sizeOf(entries: readonly string[]): DiffSize {
  let files = 0;
  let insertions = 0;
  let deletions = 0;
  for (const entry of entries) {
    const m = /^(\d+|-)\t(\d+|-)\t/.exec(entry);
    if (!m) continue;
    files++;
    if (m[1] !== '-') insertions += Number(m[1]);
    if (m[2] !== '-') deletions += Number(m[2]);
  }
  return { files, insertions, deletions };
}
