/**
 * At a restore elsewhere (`restore --to`): git writes the links inside a checkout as absolute
 * paths, so what the agent's worktree held comes back from the archive still naming the agent's
 * old place — the `.git` file of a nested repository whose git dir lies apart from it (`git init
 * --separate-git-dir=<inside>`), of a nested repository's linked worktree inside the agent's
 * worktree, and that registration's `gitdir`. git then failed in the copy, or, with the agent's
 * worktree restored at its own path too, acted on that copy's git data. Each link naming a place
 * inside the old worktree is written again to name the same place in the new one (linkFiles.ts's
 * rule: files replaced, never written through a link), and only when that place really lies in it.
 * Paths keep their bytes (byteFs.ts, bug 199).
 */
import * as path from 'node:path';
import { isWithin } from '../common/paths';
import { printable } from '../common/printable';
import { listNames, lstatOf, readPathText, realPathOf } from './byteFs';
import { replaceFile } from './linkFiles';
import { resolvedPath } from './worktreeRegistration';
import { findNestedGitEntries } from './nestedGitEntries';

/** Whether `p` is a real folder (not a symbolic link) whose real path lies in `realOuter`. */
async function realFolderWithin(p: string, realOuter: string): Promise<boolean> {
  const st = await lstatOf(p);
  const real = st?.isDirectory() ? await realPathOf(p, null) : null;
  return real !== null && isWithin(real, realOuter);
}

/** `named` moved from the old worktree into `target`, or null when it named no place inside the old one. */
function moved(named: string, origins: readonly string[], target: string): string | null {
  for (const origin of origins) if (isWithin(named, origin)) return path.join(target, path.relative(origin, named));
  return null;
}

/**
 * Rewrites, under `target`, the links naming a place in `origin` (the worktree the capture read):
 * each nested checkout's `.git` file (`nested`: their paths relative to the worktree), then the
 * registrations of each git dir inside `target` that names a checkout in `origin`. Returns what
 * could not be linked.
 */
export async function relinkNestedInside(target: string, origin: string, nested: readonly string[]): Promise<string[]> {
  const realTarget = await realPathOf(target, null);
  if (realTarget === null) return [];
  const origins = [...new Set([path.resolve(origin), resolvedPath(origin)])];
  if (origins.includes(realTarget) || origins.includes(path.resolve(target))) return [];
  const problems: string[] = [];
  const commons = new Set<string>();
  for (const rel of nested) {
    const dotGit = path.join(target, rel, '.git');
    const st = await lstatOf(dotGit);
    if (st?.isDirectory()) {
      if (await realFolderWithin(dotGit, realTarget)) commons.add(dotGit);
      continue;
    }
    if (!st?.isFile() || !(await realFolderWithin(path.dirname(dotGit), realTarget))) continue;
    const named = /^gitdir: (.+)$/m.exec(await readPathText(dotGit, ''))?.[1];
    const there = named ? moved(path.resolve(path.dirname(dotGit), named), origins, target) : null;
    if (there === null) continue;
    if (!(await realFolderWithin(there, realTarget))) {
      problems.push(`${printable(rel)}'s .git names ${printable(named!)} in the agent's old worktree, which did not come back here; git fails in it.`);
      continue;
    }
    await replaceFile(dotGit, `gitdir: ${await realPathOf(there, there)}\n`);
    const pointer = (await readPathText(path.join(there, 'commondir'), '')).replace(/\r?\n$/, '');
    commons.add(pointer ? path.resolve(there, pointer) : there);
  }
  for (const common of commons) await relinkRegistrations(common, origins, target, realTarget);
  return problems;
}

/**
 * `relinkNestedInside` for every folder holding a `.git` in the restored `target` (found there, not
 * taken from the manifest, whose list stops at 200); past the walk's bound, a sentence says so.
 */
export async function relinkNestedFound(target: string, origin: string): Promise<string[]> {
  const found = await findNestedGitEntries(target);
  const problems = await relinkNestedInside(target, origin, found.nested.map((n) => n.path));
  if (found.cut) problems.push(`${printable(target)} holds more than ${found.nested.length} nested repositories or linked checkouts; only the links of the first ${found.nested.length} were checked, and git may fail in the others until their .git files name their place here.`);
  return problems;
}

/** Each registration of `common` (inside `target`) whose `gitdir` names a checkout in the old worktree. */
async function relinkRegistrations(common: string, origins: readonly string[], target: string, realTarget: string): Promise<void> {
  const registry = path.join(common, 'worktrees');
  if (!(await realFolderWithin(registry, realTarget))) return;
  for (const name of await listNames(registry)) {
    const adminDir = path.join(registry, name);
    if (!(await realFolderWithin(adminDir, realTarget))) continue;
    const back = (await readPathText(path.join(adminDir, 'gitdir'), '')).replace(/\r?\n$/, '');
    const there = back ? moved(path.resolve(adminDir, back), origins, target) : null;
    if (there === null) continue;
    const folder = path.dirname(there);
    const real = (await realFolderWithin(folder, realTarget)) ? path.join(await realPathOf(folder, folder), '.git') : there;
    await replaceFile(path.join(adminDir, 'gitdir'), `${real}\n`);
  }
}
