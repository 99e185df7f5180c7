/**
 * A repository the agent made (or cloned) inside its worktree, with a linked worktree OUTSIDE it
 * (`git -C inner worktree add ../elsewhere`): that checkout's git data (its HEAD, index, reflog) lives
 * in `inner/.git/worktrees/<name>`, which the cleanup archives and removes with the agent's worktree.
 * Nothing is lost (the archive keeps it all, the checkout's files are not touched), but git fails
 * in that checkout until a restore brings the repository back. The capture names each one in the
 * cleanup's summary; restore links it again (`git worktree repair`, needed when the repository comes
 * back at another path), or says it could not.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { failure, PaddockError } from '../common/errors';
import { clipText } from '../common/clipText';
import { isWithin, pathExists, realPathOr } from '../common/paths';
import { printable } from '../common/printable';
import { headOf } from './innerWorktrees';
import type { NestedRepo } from './inventory';
import { firstLine, NO_HOOKS_ENV, runGit } from './runGit';

export interface OutsideWorktree {
  /** The nested repository, relative to the agent's worktree. */
  repo: string;
  /** The linked worktree's folder, as its registration names it. */
  folder: string;
  branch: string | null;
}

interface Registration {
  adminDir: string;
  folder: string;
}

/** The linked worktrees `common` (a repository's own `.git` folder) registers, read from their `gitdir` files. */
async function registrations(common: string): Promise<Registration[]> {
  const registry = path.join(common, 'worktrees');
  const found: Registration[] = [];
  for (const name of (await fs.readdir(registry).catch(() => [] as string[])).sort()) {
    const adminDir = path.join(registry, name);
    const dotGit = (await fs.readFile(path.join(adminDir, 'gitdir'), 'utf8').catch(() => '')).replace(/\r?\n$/, '');
    if (dotGit) found.push({ adminDir, folder: path.dirname(path.resolve(adminDir, dotGit)) });
  }
  return found;
}

/** The linked worktrees outside `worktree` of the repositories with a `.git` folder inside it. */
export async function outsideWorktreesOf(worktree: string, nested: readonly NestedRepo[]): Promise<OutsideWorktree[]> {
  const root = await realPathOr(worktree, worktree);
  const found: OutsideWorktree[] = [];
  for (const n of nested) {
    // A `.git` file: a submodule or a linked worktree, whose registrations live elsewhere and stay.
    if (n.gitFile) continue;
    const common = path.join(worktree, n.path, '.git');
    for (const r of await registrations(common)) {
      if (isWithin(await realPathOr(r.folder, r.folder), root)) continue;
      found.push({ repo: n.path, folder: r.folder, branch: (await headOf(r.adminDir, common)).branch });
    }
  }
  return found;
}

/** For the person, in the cleanup's summary: what stops working, and what brings it back. */
export function outsideWorktreeWords(found: readonly OutsideWorktree[]): string[] {
  return found.map((o) => {
    const folder = clipText(printable(o.folder), 1000);
    const on = o.branch ? ` (on ${clipText(printable(o.branch), 200)})` : '';
    return `${clipText(printable(o.repo), 1000)}: a repository in the agent's worktree with a linked worktree outside it, ${folder}${on}; its git data (HEAD, index, commits) is archived with the worktree and git fails in ${folder} until \`paddock restore\` brings it back and links it again`;
  });
}

/**
 * A consent stop of the capture, naming these too (after its own reason): consent to clean up
 * anyway is then given knowing that git will fail in them until a restore.
 */
export function withOutsideWorktrees(err: unknown, words: readonly string[], consentCode: string): unknown {
  if (words.length === 0 || !(err instanceof PaddockError) || err.code !== consentCode || err.message.includes(words[0]!)) return err;
  return failure(`${err.message.replace(/\.$/, '')}. Also: ${words.join('; ')}.`, consentCode);
}

/** The git dir a checkout's `.git` file names, or null (no such file, not one git wrote). */
async function namedGitDir(folder: string): Promise<string | null> {
  const text = await fs.readFile(path.join(folder, '.git'), 'utf8').catch(() => null);
  const named = text === null ? null : /^gitdir: (.+)$/m.exec(text)?.[1];
  return named ? path.resolve(folder, named) : null;
}

const same = async (a: string, b: string) => (await realPathOr(a, a)) === (await realPathOr(b, b));

/**
 * At restore, for each nested repository (`nested`, relative paths) brought back into `target`: its
 * linked worktrees outside the agent's worktree (captured at `origin`) are linked to it again when
 * their `.git` file names a git dir that is gone (the one removed with the agent's worktree); one
 * whose `.git` names another that exists is not taken over. Returns what is not as it was.
 */
export async function relinkOutsideWorktrees(target: string, origin: string, nested: readonly string[]): Promise<string[]> {
  const problems: string[] = [];
  for (const rel of nested) {
    const repoDir = path.join(target, rel);
    const common = path.join(repoDir, '.git');
    if (!(await fs.lstat(common).then((st) => st.isDirectory(), () => false))) continue;
    for (const r of await registrations(common)) {
      if (isWithin(r.folder, origin) || isWithin(r.folder, target)) continue;
      const where = `${printable(rel)}'s linked worktree ${printable(r.folder)}`;
      const named = await namedGitDir(r.folder);
      if (named !== null && (await same(named, r.adminDir))) continue;
      if (named === null) {
        problems.push(`${where} is gone or has no .git file; the repository still lists it (\`git worktree prune\` in it forgets it).`);
        continue;
      }
      if (await pathExists(named)) {
        problems.push(`${where} now belongs to ${printable(named)}; it was not linked to the restored repository (\`git worktree repair\` in it would take it over).`);
        continue;
      }
      const res = await runGit(['worktree', 'repair', r.folder], { cwd: repoDir, env: NO_HOOKS_ENV, allowFailure: true });
      const after = await namedGitDir(r.folder);
      if (res.code !== 0 || after === null || !(await same(after, r.adminDir))) {
        problems.push(`${where} could not be linked to the restored repository again (${firstLine(res.stderr) || `exit code ${res.code}`}); git fails there until \`git worktree repair\` is run in it.`);
      }
    }
  }
  return problems;
}
