/**
 * Whether an agent's worktree still leads to its repository. An agent can cut
 * the link: `rm .git` (git then sees a folder of loose files, and the worktree
 * is "prunable") or `rm -rf .git && git init` (the folder becomes a repository
 * of its own). A capture must not run git there as if nothing happened.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { commonDirOf, gitDirOwner, sharedGitDir, worktreeGitDir } from './headFiles';
import { runGit } from './runGit';
import { writeLinkFiles } from './linkFiles';
import { realPathOr } from '../common/paths';
import { registrationsOf } from './worktreeRegistration';
import { registrationNamedBy } from './registrationNamed';

/** `linked`: its `.git` leads to the repository; `missing`: no `.git`; `own`: a repository of its own; `broken`: a `.git` that leads nowhere. */
export type WorktreeLink = 'linked' | 'missing' | 'own' | 'broken';

export async function worktreeLink(repo: string, worktree: string): Promise<WorktreeLink> {
  const dotGit = await fs.lstat(path.join(worktree, '.git')).catch(() => null);
  if (dotGit === null) return 'missing';
  // A `.git` file or symlink must lead to this worktree's own git dir, and a `.git` folder must not be
  // another worktree's: one leading to another's (the main repository's `.git`, a sibling agent's)
  // leads to the repository, but git would capture that worktree's HEAD and index, and refuse the
  // removal ("does not point back"). A folder with no `gitdir` is a repository's own git dir.
  const owner = await gitDirOwner(worktree);
  if (dotGit.isDirectory() ? owner === 'another' : owner !== 'this') return 'broken';
  // From git's files first (no process on every cleanup); git decides what they cannot.
  const [mine, its] = await Promise.all([commonDirFromFiles(repo), commonDirFromFiles(worktree)]);
  if (mine !== null && mine === its) return 'linked';
  const [mineByGit, itsByGit] = await Promise.all([commonDirByGit(repo), commonDirByGit(worktree)]);
  if (mineByGit !== null && mineByGit === itsByGit) return 'linked';
  return itsByGit !== null ? 'own' : 'broken';
}

/**
 * Writes a missing or broken `.git` of a registered worktree again from the repository's record of
 * it; true when the worktree leads to the repository afterwards.
 */
export async function relinkWorktree(repo: string, worktree: string, branch?: string | null): Promise<boolean> {
  return (await relinkOrWhy(repo, worktree, branch)) === null;
}

/**
 * `relinkWorktree`, with why it could not (a clause naming the real cause), or null once linked.
 *
 * The folder's own registration (the admin dir whose `gitdir` names it; with none, the one its
 * `.git` names that has lost track of it: registrationNamed.ts) is written into its `.git` file
 * (linkFiles.ts). Never `git worktree repair`: given a `.git` naming another worktree's git dir it
 * takes that one's registration (the removal that follows deletes the other's git dir), and
 * whatever it is given it rewrites every checkout of the person's repository whose `.git` names
 * another git dir. With two registrations (git fooled) or a `.git` folder there (the agent's),
 * nothing is written. `branch`: the agent's (proof that a registration that lost track is its own).
 */
export async function relinkOrWhy(repo: string, worktree: string, branch?: string | null): Promise<string | null> {
  const dotGit = path.join(worktree, '.git');
  const stat = await fs.lstat(dotGit).catch(() => null);
  if (stat?.isDirectory()) return `its .git is a folder that is not a repository of its own (nor this worktree's git dir), which Paddock does not write over — move it aside and retry`;
  const common = await sharedGitDir(repo);
  if (common === null) return `git cannot read ${repo}`;
  const own = await registrationsOf(repo, worktree);
  if (own.length > 1) return `${own.length} registrations in ${common}/worktrees name it (${own.join(', ')}), so Paddock cannot tell which is its own — remove the one that is not (a copy) and retry`;
  const found = own.length === 1 ? { adminDir: own[0]! } : await registrationNamedBy(common, worktree, branch);
  if ('problem' in found) return `${found.problem} — nothing to link it to; its files are intact (copy them out, or link it by hand and retry)`;
  // A symlink goes first: writing through it would write into what it leads to (another's `.git`).
  if (stat?.isSymbolicLink()) await fs.unlink(dotGit);
  const failed = await writeLinkFiles(worktree, found.adminDir).then(() => null, (err: unknown) => (err instanceof Error ? err.message : String(err)));
  if (failed !== null) return `writing its link to ${found.adminDir} failed (${failed})`;
  if ((await worktreeLink(repo, worktree)) !== 'linked') return `its link to ${found.adminDir} was written but git still does not read it as a worktree of ${repo}`;
  return null;
}

/** What `ensureLinked` did: nothing (linked), linked it again (with a note), or what stands in the way. */
export type LinkCheck = { ok: true; note?: string } | { ok: false; problem: string; own: boolean };

/**
 * Makes sure git run in `worktree` acts on `repo`'s worktree: a cut or broken link is written
 * again; a repository of the worktree's own is never touched. `problem` is a clause for the
 * caller's sentence, which says what was (not) done. `branch`: the agent's (registrationNamed.ts).
 */
export async function ensureLinked(repo: string, worktree: string, branch?: string | null): Promise<LinkCheck> {
  const link = await worktreeLink(repo, worktree);
  if (link === 'linked') return { ok: true };
  if (link === 'own') {
    return { ok: false, own: true, problem: `${path.join(worktree, '.git')} is a repository of its own now (made in the worktree, as by git init), no longer the link to ${repo}` };
  }
  const how = link === 'missing' ? 'its .git was gone' : 'its link to the repository was broken';
  const why = await relinkOrWhy(repo, worktree, branch);
  if (why !== null) {
    return { ok: false, own: false, problem: `${worktree} is no longer linked to ${repo} (${how}) and Paddock could not link it again: ${why}` };
  }
  return { ok: true, note: `linked the worktree to its repository again first (${how})` };
}

async function commonDirFromFiles(dir: string): Promise<string | null> {
  try {
    const gitDir = await worktreeGitDir(dir);
    return gitDir === undefined ? null : await fs.realpath(await commonDirOf(gitDir));
  } catch {
    return null;
  }
}

async function commonDirByGit(dir: string): Promise<string | null> {
  // Never the repository of a folder above (a worktree root inside another checkout).
  const res = await runGit(['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd: dir, allowFailure: true, env: { GIT_CEILING_DIRECTORIES: path.dirname(dir) } });
  const common = res.stdout.trim();
  if (res.code !== 0 || !common) return null;
  return realPathOr(common, null);
}
