/**
 * Compare Attempts: for each attempt of a group still in the store — state,
 * elapsed time, check result, commits, files changed with lines added and
 * removed — and the lines the attempts changed in common.
 *
 * "In common", precisely: for each file, an added line (a `+` line of the
 * attempt's diff from its base to its full state; compared after trimming
 * leading and trailing white space; blank lines ignored) is common when the
 * same file's diff of at least one other attempt adds the same line. Each
 * common line is listed once per file with the attempts that added it.
 *
 * Each attempt's changes are counted from where it started, or from the base
 * it last brought in with Update from Base (what the base gained is not the
 * attempt's). Attempts cleaned up are compared from their evidence snapshots;
 * forgotten ones are counted as missing; those whose record cannot be read are
 * named as unreadable (unreadableAttempts.ts). Nothing here writes to the store.
 */
import type { JobStore } from '../store';
import type { Check, JobRecord, LifecycleState } from '../store/schema';
import { groupMembersOf } from '../operations/groups';
import { unreadableAttempts, type UnreadableAttempt } from './unreadableAttempts';
import { checkOutOfDate } from '../check/checkCurrency';
import { addedLines, attemptTree, commitsSince, fileChanges, ownChangesFrom, type FileChange } from './attemptTree';
import { failure } from '../common/errors';
import { printable } from '../common/printable';

/** Common lines listed at most (the count is exact beyond it). */
const MAX_COMMON_LINES = 200;

export interface AttemptComparison {
  id: string;
  index: number;
  profile: string | null;
  state: LifecycleState;
  exitCode: number | null;
  /** From start to end (or to now while it runs); null when it never started. */
  elapsedMs: number | null;
  check: Check | null;
  /** The check was made before the attempt's last run ended (`checkOutOfDate`). */
  checkOutOfDate: boolean;
  cleanedUp: boolean;
  /** Where its files were read from; null with `unavailable` when they could not be. */
  source: 'worktree' | 'snapshot' | null;
  unavailable: string | null;
  /** The tree compared (for a diff between two attempts). */
  tree: string | null;
  commits: number;
  files: FileChange[];
  added: number;
  removed: number;
}

export interface CommonLine {
  path: string;
  text: string;
  /** Ids of the attempts whose diff of `path` adds this line (two or more). */
  attempts: string[];
}

export interface GroupComparison {
  group: { id: string; title: string; size: number };
  baseSha: string | null;
  attempts: AttemptComparison[];
  /** How many of the group's attempts are no longer in the store (forgotten; an unreadable record is not). */
  missing: number;
  /**
   * Records in the store that cannot be read and are this group's attempts (`certain`), or may be
   * (their group cannot be read): not compared, and not counted as forgotten.
   */
  unreadable: UnreadableAttempt[];
  common: CommonLine[];
  /** Total number of common lines (may exceed `common.length`, which is capped). */
  commonCount: number;
  /** Common lines per file. */
  commonByFile: { path: string; lines: number }[];
}

function elapsed(job: JobRecord, now: number): number | null {
  const start = job.lifecycle.startedAt ? Date.parse(job.lifecycle.startedAt) : NaN;
  if (!Number.isFinite(start)) return null;
  const end = job.lifecycle.endedAt ? Date.parse(job.lifecycle.endedAt) : now;
  return Math.max(0, end - start);
}

/**
 * `groupMembersOf`, except that a group whose every listed attempt has an unreadable record is said
 * so, naming them: "no group, or all forgotten" would be wrong about records still in the list.
 */
async function readableMembers(store: JobStore, entries: Awaited<ReturnType<JobStore['list']>>, groupId: string): Promise<JobRecord[]> {
  try {
    return groupMembersOf(entries, groupId);
  } catch (err) {
    const named = (await unreadableAttempts(entries, groupId, (id) => store.jobDir(id), Infinity)).filter((u) => u.certain);
    if (named.length === 0) throw err;
    const list = named.map((u) => `${u.id} (${printable(u.reason)})`).join(', ');
    throw failure(`Every attempt of group ${groupId} still listed has a record that cannot be read: ${list}; nothing was compared.`);
  }
}

export async function compareGroup(store: JobStore, groupId: string, now = Date.now()): Promise<GroupComparison> {
  const entries = await store.list();
  const members = await readableMembers(store, entries, groupId);
  const first = members[0];
  const group = { id: groupId, title: first.group!.title, size: first.group!.size };
  const baseSha = members.find((j) => j.baseSha)?.baseSha ?? null;
  const attempts: AttemptComparison[] = [];
  const linesOf = new Map<string, Map<string, string[]>>();
  for (const job of members) {
    const row: AttemptComparison = {
      id: job.id,
      index: job.group!.index,
      profile: job.profile,
      state: job.lifecycle.state,
      exitCode: job.lifecycle.exitCode,
      elapsedMs: elapsed(job, now),
      check: job.check ?? null,
      checkOutOfDate: checkOutOfDate(job),
      cleanedUp: job.cleanup?.phase === 'complete',
      source: null,
      unavailable: null,
      tree: null,
      commits: 0,
      files: [],
      added: 0,
      removed: 0,
    };
    attempts.push(row);
    if (!job.baseSha) {
      row.unavailable = 'it never got a worktree';
      continue;
    }
    try {
      const found = await attemptTree(job);
      if ('unavailable' in found) {
        row.unavailable = found.unavailable;
        continue;
      }
      row.source = found.source;
      row.tree = found.tree;
      const from = await ownChangesFrom(job, found.head);
      row.commits = found.head ? await commitsSince(job.repo, from, found.head) : 0;
      row.files = await fileChanges(job.repo, from, found.tree);
      row.added = row.files.reduce((n, f) => n + (f.added ?? 0), 0);
      row.removed = row.files.reduce((n, f) => n + (f.removed ?? 0), 0);
      const lines = await addedLines(job.repo, from, found.tree);
      // A symbolic link's "line" is where it points, not a line of text the attempt wrote.
      for (const f of row.files) if (f.kind === 'symlink' || f.kind === 'now a symlink') lines.delete(f.path);
      linesOf.set(job.id, lines);
    } catch (err) {
      row.unavailable = (err as Error).message;
    }
  }
  const common = commonLines(linesOf);
  const perFile = new Map<string, number>();
  for (const line of common) perFile.set(line.path, (perFile.get(line.path) ?? 0) + 1);
  const unaccounted = Math.max(0, group.size - members.length);
  const unreadable = await unreadableAttempts(entries, groupId, (id) => store.jobDir(id), unaccounted);
  return {
    group,
    baseSha,
    attempts,
    missing: Math.max(0, unaccounted - unreadable.filter((u) => u.certain).length),
    unreadable,
    common: common.slice(0, MAX_COMMON_LINES),
    commonCount: common.length,
    commonByFile: [...perFile].map(([path, lines]) => ({ path, lines })).sort((a, b) => b.lines - a.lines || a.path.localeCompare(b.path)),
  };
}

/** Lines added to the same file by two or more attempts (trimmed, blank lines ignored), by file then first appearance. */
export function commonLines(linesOf: ReadonlyMap<string, ReadonlyMap<string, readonly string[]>>): CommonLine[] {
  const seen = new Map<string, { path: string; text: string; attempts: Set<string> }>();
  for (const [id, files] of linesOf) {
    for (const [path, lines] of files) {
      for (const raw of lines) {
        const text = raw.trim();
        if (!text) continue;
        const key = `${path}\0${text}`;
        let entry = seen.get(key);
        if (!entry) seen.set(key, (entry = { path, text, attempts: new Set() }));
        entry.attempts.add(id);
      }
    }
  }
  return [...seen.values()]
    .filter((e) => e.attempts.size > 1)
    .map((e) => ({ path: e.path, text: e.text, attempts: [...e.attempts] }))
    .sort((a, b) => a.path.localeCompare(b.path));
}
