/**
 * The positions a detached HEAD held, from HEAD's reflog: what a dropped start is judged against when
 * apply lands on one (droppedBase.ts). HEAD's reflog also records where HEAD was on each branch it was
 * on before; those are the branches' positions, not the detached HEAD's: a HEAD detached at a release
 * branch that never held the start is no HEAD "moved back" because main once held it (bug 218).
 */
import { isCommitId } from './commitId';
import { runGit } from './runGit';

/** How many of HEAD's (and the branch's) recent positions are looked at, as droppedBase does for a branch. */
const REFLOG_LOOK = 1000;

interface ReflogEntry {
  commit: string;
  /** Seconds since the epoch, as git's `--date=unix` selector says. */
  time: number;
  subject: string;
}

async function readReflog(repo: string, ref: string): Promise<ReflogEntry[] | null> {
  const res = await runGit(['log', '-g', `-n${REFLOG_LOOK}`, '--date=unix', '--format=%H %gd %gs', '--end-of-options', ref], { cwd: repo, allowFailure: true });
  if (res.code !== 0) return null;
  const entries: ReflogEntry[] = [];
  for (const line of res.stdout.split('\n')) {
    const m = /^(\S+) \S*@\{(\d+)\} (.*)$/.exec(line);
    if (m && isCommitId(m[1]!)) entries.push({ commit: m[1]!, time: Number(m[2]), subject: m[3]! });
  }
  return entries;
}

/**
 * The detached HEAD's own positions, newest first: HEAD's reflog since it last left a branch (`checkout: moving
 * from B to …`; a move from one commit to another while detached is still the detached HEAD's). When it was detached
 * where it stood on B (`git checkout --detach`), B's positions until then are its past too: a reset of B, then the
 * detach, is still a drop. Null when git cannot say (no reflog): the caller then judges nothing.
 */
export async function detachedHeadPositions(repo: string): Promise<string[] | null> {
  const head = await readReflog(repo, 'HEAD');
  if (head === null || head.length === 0) return null;
  const left = head.findIndex((e) => {
    const from = /^checkout: moving from (\S+) to /.exec(e.subject)?.[1];
    return from !== undefined && !isCommitId(from);
  });
  if (left < 0) return head.map((e) => e.commit);
  const own = head.slice(0, left + 1).map((e) => e.commit);
  const detach = head[left]!;
  // HEAD's position before the checkout was B's tip then: detached there, B's history is the detached HEAD's.
  const before = head[left + 1];
  if (before === undefined || before.commit !== detach.commit) return own;
  const branch = /^checkout: moving from (\S+) to /.exec(detach.subject)![1]!;
  const onBranch = await readReflog(repo, `refs/heads/${branch}`);
  return [...own, ...(onBranch ?? []).filter((e) => e.time <= detach.time).map((e) => e.commit)];
}
