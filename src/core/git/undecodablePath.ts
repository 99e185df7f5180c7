/**
 * A folder whose name is not UTF-8, given on the command line or as the working folder: Node reads
 * argv and the working folder as UTF-8, each invalid byte becoming U+FFFD, and the string then names
 * no folder. Said as "does not exist", that was false (bug 127). This finds the entry meant: the first
 * component of the path that is missing, when it holds U+FFFD, matched in its folder against the
 * names as bytes.
 */
import { isUtf8 } from 'node:buffer';
import { existsSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { decodeName, fsPath } from './pathBytes';

/**
 * The real paths (raw bytes as surrogate escapes, shown as `\xff`) of the folders `abs` may misread:
 * none, one, or several when sibling names differ only in invalid bytes (`r\xffo`, `r\xfeo`), which
 * read alike. Then, when `abs` is the working folder, the one that is it (by device and inode) is
 * meant; otherwise all are, for nothing tells which.
 */
export function undecodableFolders(abs: string): string[] {
  let at = path.parse(abs).root;
  const parts = abs.slice(at.length).split(path.sep).filter((p) => p !== '');
  for (const [i, part] of parts.entries()) {
    const next = path.join(at, part);
    if (existsSync(next)) {
      at = next;
      continue;
    }
    if (!part.includes('\uFFFD')) return [];
    let names: Buffer[];
    try {
      names = readdirSync(at, { encoding: 'buffer' });
    } catch {
      return [];
    }
    const meant = names.filter((name) => !isUtf8(name) && name.toString('utf8') === part).map((name) => path.join(at, decodeName(name))).sort();
    if (meant.length < 2 || abs !== process.cwd()) return meant;
    const rest = parts.slice(i + 1);
    const working = meant.filter((folder) => isWorkingFolder(path.join(folder, ...rest)));
    return working.length === 1 ? working : meant;
  }
  return [];
}

function isWorkingFolder(p: string): boolean {
  try {
    const here = statSync('.');
    const there = statSync(fsPath(p));
    return here.dev === there.dev && here.ino === there.ino;
  } catch {
    return false;
  }
}

/**
 * What to say of `abs`, a path that names nothing, when it misreads folders whose names are not UTF-8
 * (the sentence bug 127 gave `start --repo`); undefined when it misreads none.
 */
export function undecodableFolderSentence(abs: string): string | undefined {
  const meant = undecodableFolders(abs);
  if (meant.length === 1) return `Folder ${meant[0]} has a name that is not valid UTF-8, which Paddock cannot carry in a path; rename it.`;
  if (meant.length > 1) {
    const named = `${meant.slice(0, -1).join(', ')} and ${meant[meant.length - 1]}`;
    return `Folders ${named} have names that are not valid UTF-8 and read alike as ${abs}, which Paddock cannot carry in a path; rename them.`;
  }
  return undefined;
}
