/**
 * Linked worktrees of ANOTHER repository that the agent made inside its own
 * (`git -C /other worktree add $WORKTREE/sub --detach`). Their files are
 * archived with the worktree's, but the commits made there live in the other
 * repository, known only to that worktree's HEAD and reflog in its
 * registration (`/other/.git/worktrees/sub`): once the folder is gone, the
 * other repository's `worktree prune` (run by its own `gc`, too) drops the
 * registration and its next gc the commits. The capture copies them into the
 * agent's repository (a local fetch: nothing is written outside it) and the
 * snapshot keeps them as extra parents. The other repository is left as it was,
 * its registration too: the person is told, and restore says whether it links
 * again. A staged state there (its index lives in the other repository, and
 * its blobs with it) cannot be kept without writing there: the capture stops
 * for consent instead (foreignWorktreeStaged).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { failure } from '../common/errors';
import { isWithin, realPathOr } from '../common/paths';
import { printable } from '../common/printable';
import { isCommitId } from './commitId';
import { commonDirOf } from './headFiles';
import { headOf } from './innerWorktrees';
import type { NestedRepo } from './inventory';
import { commitsOnlyInWorktree } from './keptCommits';
import { firstLine, GIT_BULK_TIMEOUT_MS, READ_ONLY_GIT, runGit } from './runGit';
import { privateGitDir } from './gitDirsToKeep';

export interface ForeignWorktree {
  /** Its folder, relative to the agent's worktree. */
  path: string;
  /** The other repository's shared git dir. */
  repo: string;
  /** Its registration there (`<repo>/worktrees/<name>`). */
  gitDir: string;
  head: string | null;
  branch: string | null;
}

/** As the inventory records it: and the commits copied into the agent's repository (the snapshot's parents). */
export interface ForeignRecord {
  path: string;
  repo: string;
  head: string | null;
  branch: string | null;
  commits: string[];
  /** Commits that could not be copied here, left (with consent) in the other repository only. Absent: none. */
  notCopied?: number;
}

/**
 * The nested checkouts whose `.git` file names a linked worktree's git dir (it has a `commondir`)
 * of a repository other than the agent's. Those of the agent's own repository are innerWorktrees.ts';
 * those whose git dir is inside the worktree's private one die with it and are archived
 * (gitDirsToKeep.ts); a `.git` file naming a whole repository elsewhere names one that outlives the worktree.
 */
export async function foreignWorktreesIn(worktree: string, nested: readonly NestedRepo[], ownGitDir: string, ownCommon: string): Promise<ForeignWorktree[]> {
  const own = await realPathOr(ownCommon, ownCommon);
  const ownPrivate = await realPathOr(ownGitDir, ownGitDir);
  const found: ForeignWorktree[] = [];
  for (const n of nested) {
    if (!n.gitFile) continue;
    let gitDir: string;
    try {
      gitDir = await realPathOr(privateGitDir(path.join(worktree, n.path)), '');
    } catch {
      continue;
    }
    if (gitDir === '' || isWithin(gitDir, ownPrivate)) continue;
    const commondir = (await fs.readFile(path.join(gitDir, 'commondir'), 'utf8').catch(() => '')).replace(/\r?\n$/, '');
    if (commondir === '') continue;
    const repo = await realPathOr(path.resolve(gitDir, commondir), path.resolve(gitDir, commondir));
    if (repo === own) continue;
    found.push({ path: n.path, repo, gitDir, ...(await headOf(gitDir, repo)) });
  }
  return found;
}

/**
 * The foreign worktrees whose index holds staged changes (or cannot be compared): those are in the
 * other repository's index and objects, which the capture does not write to; their files are archived.
 */
export async function foreignWorktreeStaged(worktree: string, foreign: readonly ForeignWorktree[]): Promise<string[]> {
  const staged: string[] = [];
  for (const f of foreign) {
    const res = await runGit(['diff', '--cached', '--quiet', '--no-ext-diff'], { cwd: path.join(worktree, f.path), env: READ_ONLY_GIT, allowFailure: true });
    if (res.code !== 0) staged.push(f.path);
  }
  return staged;
}

/**
 * Copies the commits only each foreign worktree knows (its HEAD, reflogs, pseudo-refs and own refs,
 * less what the other repository's branches, tags and remote-tracking refs keep) into `repo`, the
 * agent's. Returns the records; their commits are then in `repo` (checked), for the snapshot to keep.
 */
export async function keepForeignCommits(repo: string, worktree: string, foreign: readonly ForeignWorktree[], consent: { drop: boolean; code: string }): Promise<ForeignRecord[]> {
  const records: ForeignRecord[] = [];
  for (const f of foreign) {
    const checkout = path.join(worktree, f.path);
    const { tips } = await commitsOnlyInWorktree(checkout, f.gitDir, null, null, [{ path: '', gitDir: f.gitDir, head: f.head, branch: f.branch }]);
    const commits = tips.filter((sha) => isCommitId(sha));
    if (commits.length > 0) {
      // upload-pack in the other repository sends only advertised tips unless allowed: these are its
      // worktree's, unadvertised. No FETCH_HEAD, no ref: the snapshot's parents keep the objects.
      const res = await runGit(['-c', 'uploadpack.allowAnySHA1InWant=true', 'fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--no-recurse-submodules', f.repo, ...commits], {
        cwd: repo,
        allowFailure: true,
        timeoutMs: GIT_BULK_TIMEOUT_MS,
      });
      const check = res.code === 0 ? await runGit(['cat-file', '--batch-check'], { cwd: repo, input: commits.map((c) => `${c}^{commit}`).join('\n') + '\n', allowFailure: true }) : res;
      if (res.code !== 0 || check.code !== 0 || check.stdout.includes('missing')) {
        // With consent they stay where they are, in the other repository only, and the person is told so.
        if (consent.drop) {
          records.push({ path: f.path, repo: f.repo, head: f.head, branch: f.branch, commits: [], notCopied: commits.length });
          continue;
        }
        throw failure(
          `Nothing was removed: ${printable(f.path)} is a worktree of another repository (${printable(f.repo)}) whose commits could not be copied into this one (${firstLine(res.stderr) || 'some are missing'}). Move it out of the agent's worktree or remove it with \`git -C ${printable(f.repo)} worktree remove\` and retry, or clean up anyway to leave them in that repository only.`,
          consent.code,
        );
      }
    }
    records.push({ path: f.path, repo: f.repo, head: f.head, branch: f.branch, commits });
  }
  return records;
}

/**
 * The capture's step: finds them, stops for consent (`consentCode`) when one holds staged changes or
 * its commits cannot be copied here (unless `dropStaged`: the person agreed to keep only its files,
 * and those commits stay in the other repository only, said), and copies their commits here.
 */
export async function keepForeignWorktrees(o: { repo: string; worktree: string; nested: readonly NestedRepo[]; ownGitDir: string; dropStaged: boolean; consentCode: string }): Promise<ForeignRecord[]> {
  const found = await foreignWorktreesIn(o.worktree, o.nested, o.ownGitDir, await commonDirOf(o.ownGitDir));
  const staged = o.dropStaged ? [] : await foreignWorktreeStaged(o.worktree, found);
  if (staged.length > 0) {
    throw failure(
      `Nothing was removed: ${staged.map((p) => printable(p)).join(', ')}: worktree(s) of another repository with staged changes, which live in that repository's index, not in these files. Commit or unstage them there and retry, or clean up anyway to keep only the files.`,
      o.consentCode,
    );
  }
  return keepForeignCommits(o.repo, o.worktree, found, { drop: o.dropStaged, code: o.consentCode });
}

/** For the person: where each went, and that the other repository still lists it. */
export function foreignWorktreeWords(records: readonly ForeignRecord[]): string[] {
  return records.map(
    (r) =>
      `${printable(r.path)}: a worktree of ${printable(r.repo)}; ${r.notCopied ? `${r.notCopied} commit(s) made there NOT kept (they could not be copied here; they are in that repository only, until it prunes the worktree)` : `${r.commits.length} commit(s) made there kept by the snapshot`}; that repository still lists it (\`git worktree prune\` there forgets it)`,
  );
}

/**
 * At restore: each foreign worktree's files came back from the archive with their `.git` file, which
 * names its registration in the other repository. Restore does not write there: it says whether that
 * registration still leads back to the folder, and where the commits are when it does not.
 */
export async function foreignWorktreeNotes(target: string, snapshotRef: string, records: readonly ForeignRecord[] | undefined): Promise<string[]> {
  const notes: string[] = [];
  for (const r of records ?? []) {
    const dir = path.join(target, r.path);
    let gitDir: string;
    try {
      gitDir = privateGitDir(dir);
    } catch {
      continue; // not back (dropped with consent): its commits are said by the inventory's kept count
    }
    const back = (await fs.readFile(path.join(gitDir, 'gitdir'), 'utf8').catch(() => null))?.replace(/\r?\n$/, '');
    const here = path.join(dir, '.git');
    if (back !== undefined && back !== null && (await realPathOr(path.resolve(gitDir, back), '')) === (await realPathOr(here, here))) continue;
    const at = r.head ? ` at ${r.head.slice(0, 12)}` : '';
    notes.push(
      back === undefined || back === null
        ? `${printable(r.path)} was a worktree of ${printable(r.repo)}${at}, which no longer has it registered: its files are back, not linked; its ${r.commits.length} commit(s) made there are kept in this repository by ${snapshotRef}`
        : `${printable(r.path)} is a worktree of ${printable(r.repo)}${at} registered at its old place: \`git -C ${printable(dir)} worktree repair\` links it here`,
    );
  }
  return notes;
}
