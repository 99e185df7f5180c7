/**
 * Linked worktrees the agent made inside its own worktree (`git worktree add
 * inner`). Their files go with the worktree's folder; their git dirs live in the
 * repository's (`<common>/worktrees/<name>`), so they outlive it — but only
 * until `git worktree prune` sees their folder gone, and with them goes their
 * HEAD reflog, the only record of the commits made there. The capture keeps
 * those commits and where each worktree was; the removal then forgets their
 * registrations (innerForget.ts); restore links each again.
 */
import * as path from 'node:path';
import { branchRefEnd, commonDirOf } from './headFiles';
import { isCommitId } from './commitId';
import { fsPath } from './pathBytes';
import { listNames, readPathText, realPathOf } from './byteFs';
import { resolvedPath } from './worktreeRegistration';
import { isWithin, realPathOr } from '../common/paths';
import { readGitFileText, PACKED_REFS_CAP } from './gitFileText';

export interface InnerWorktree {
  /** Its folder, relative to the agent's worktree. */
  path: string;
  /** Its private git dir in the repository's. */
  gitDir: string;
  /** The commit it had checked out; null when unborn or unreadable. */
  head: string | null;
  /** The branch checked out there (short name), null when detached. */
  branch: string | null;
}

/** The commit a worktree's HEAD names, reading the loose or packed ref when it is a branch (a symbolic one followed to where it ends, as git does). */
export async function headOf(gitDir: string, common: string): Promise<{ head: string | null; branch: string | null }> {
  const text = (await readGitFileText(fsPath(path.join(gitDir, 'HEAD'))).catch(() => '')).trim();
  if (isCommitId(text)) return { head: text, branch: null };
  const named = /^ref: (refs\/heads\/.+)$/.exec(text)?.[1];
  const ref = named && ((await branchRefEnd(common, named).catch(() => undefined)) ?? named);
  if (!ref) return { head: null, branch: null };
  const branch = ref.slice('refs/heads/'.length);
  const loose = (await readGitFileText(fsPath(path.join(common, ...ref.split('/')))).catch(() => '')).trim();
  if (isCommitId(loose)) return { head: loose, branch };
  const packed = await readGitFileText(fsPath(path.join(common, 'packed-refs')), PACKED_REFS_CAP).catch(() => '');
  const line = packed.split('\n').find((l) => l.endsWith(` ${ref}`));
  const sha = line?.split(' ')[0] ?? '';
  return { head: isCommitId(sha) ? sha : null, branch };
}

/**
 * Every worktree registered in the repository whose folder lies inside `worktree` (read from the
 * registrations' `gitdir` files: no git process, and a registration whose folder is gone still counts).
 */
export async function innerWorktrees(worktree: string, ownGitDir: string): Promise<InnerWorktree[]> {
  const own = await realPathOr(ownGitDir, ownGitDir);
  return registeredInside(await commonDirOf(ownGitDir), worktree, own);
}

/**
 * The registrations in `common` (the repository's shared git dir) of worktrees whose folder lies
 * inside `worktree`, present or gone; `own` is a registration to pass over (the worktree's own).
 */
export async function registeredInside(common: string, worktree: string, own: string | null = null): Promise<InnerWorktree[]> {
  const registry = path.join(common, 'worktrees');
  const names = await listNames(registry);
  // Resolved through its parent when it is gone (cleanup asks after the removal).
  const root = resolvedPath(worktree);
  const found: InnerWorktree[] = [];
  for (const name of names.sort()) {
    const gitDir = path.join(registry, name);
    if (own !== null && (await realPathOf(gitDir, gitDir)) === own) continue;
    // Its folder's name as bytes (byteFs.ts): one under `bad\xff` was recorded as `bad\ufffd`, which restore could not find (bug 199).
    const dotGit = (await readPathText(path.join(gitDir, 'gitdir'), '')).replace(/\r?\n$/, '');
    if (!dotGit) continue;
    const folder = path.dirname(path.resolve(gitDir, dotGit));
    const real = await realPathOf(folder, folder);
    if (real === root || !isWithin(real, root)) continue;
    found.push({ path: path.relative(root, real).split(path.sep).join('/'), gitDir, ...(await headOf(gitDir, common)) });
  }
  return found;
}
