/**
 * Cleanup's half of innerWorktrees.ts: the folder of a linked worktree the
 * agent made inside its own goes with the agent's worktree, but its
 * registration stays in the repository's git dir, listed as prunable and still
 * holding its path, so that a restore to the same place could not link it
 * again. Once the capture has kept what it knew, it is forgotten; one whose
 * commits or staged changes nothing else keeps stays, for the person to look at.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { withTextPath } from './byteFs';
import { isCommitId } from './commitId';
import { sharedGitDir } from './headFiles';
import { registeredInside, type InnerWorktree } from './innerWorktrees';
import { innerWorktreeCommits } from './keptCommits';
import { ALL_SUBMODULES, READ_ONLY_GIT, runGit } from './runGit';
import { fsPath } from './pathBytes';
import { removeRegistration, resolvedPath } from './worktreeRegistration';

/** Every commit its git dir knows is reachable from a ref of the repository (the snapshot's, a branch…). */
async function commitsKept(repo: string, w: InnerWorktree): Promise<boolean> {
  const commits = await innerWorktreeCommits(w);
  if (commits.length === 0) return true;
  // Refs only: `--all` would count the HEADs of worktrees, this one's among them.
  const refs = await runGit(['for-each-ref', '--format=%(objectname) %(objecttype) %(*objectname) %(*objecttype)', 'refs/'], { cwd: repo, env: READ_ONLY_GIT, allowFailure: true });
  if (refs.code !== 0) return false;
  const tips = refs.stdout.split('\n').flatMap((line) => {
    const [sha, type, peeled, peeledType] = line.split(' ');
    const commit = type === 'commit' ? sha : peeledType === 'commit' ? peeled : undefined;
    return commit && isCommitId(commit) ? [`^${commit}`] : [];
  });
  const input = [...commits, ...tips].join('\n') + '\n';
  const res = await runGit(['rev-list', '--stdin', '--ignore-missing', '--max-count=1'], { cwd: repo, env: READ_ONLY_GIT, input, allowFailure: true });
  return res.code === 0 && res.stdout.trim() === '';
}

/** Its index records nothing but its HEAD: the evidence keeps its files and commits, not its index. */
async function nothingStaged(repo: string, w: InnerWorktree): Promise<boolean> {
  const head = w.head;
  if (!head) return false;
  // Its git dir through a text-named link when its name is not text: given as a string, `bad\xff`
  // reached git as `bad\ufffd`, another registration (bug 200).
  return withTextPath(w.gitDir, async (gitDir) => {
    const res = await runGit(['--git-dir', gitDir, 'diff-index', '--cached', '--quiet', ALL_SUBMODULES, head, '--'], { cwd: repo, env: READ_ONLY_GIT, allowFailure: true });
    return res.code === 0;
  });
}

/**
 * Forgets the registrations of the linked worktrees whose folders were inside `worktree`, now
 * removed, and are gone with it: never one whose folder is still there, one locked (`git worktree
 * lock`: its owner's word that it stays), or one that knows a commit no ref keeps or has staged
 * changes. Returns the paths (relative to `worktree`) of those left registered.
 */
export async function forgetInnerWorktrees(repo: string, worktree: string): Promise<string[]> {
  if (existsSync(fsPath(worktree))) return [];
  const common = await sharedGitDir(repo);
  if (common === null) return [];
  const root = resolvedPath(worktree);
  const kept: string[] = [];
  for (const w of await registeredInside(common, worktree)) {
    // Every path by its bytes (fsPath): `worktrees/bad\xff` read as a string is `worktrees/bad\ufffd`,
    // which may be the person's own registration — found unlocked and clean, it was removed (bug 200).
    if (existsSync(fsPath(path.join(root, w.path)))) continue;
    if (existsSync(fsPath(path.join(w.gitDir, 'locked'))) || !(await nothingStaged(repo, w)) || !(await commitsKept(repo, w))) {
      kept.push(w.path);
      continue;
    }
    // Its own admin dir, found by its `gitdir` file: no other registration is touched.
    await removeRegistration(w.gitDir);
  }
  return kept;
}
