/**
 * A folder whose name is not UTF-8, given on the command line or as the working folder: Node reads
 * argv and the working folder as UTF-8, each invalid byte becoming U+FFFD, and the string then names
 * no folder. Said as "does not exist", that was false (bug 127). This finds the entry meant: the first
 * component of the path that is missing, when it holds U+FFFD, matched in its folder against the
 * names as bytes.
 */
import { isUtf8 } from 'node:buffer';
import { existsSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { decodeName } from './pathBytes';

/** The real path (its raw bytes as surrogate escapes, shown as `\xff`) of the folder `abs` misread names, if any. */
export function undecodableFolder(abs: string): string | undefined {
  let at = path.parse(abs).root;
  for (const part of abs.slice(at.length).split(path.sep).filter((p) => p !== '')) {
    const next = path.join(at, part);
    if (existsSync(next)) {
      at = next;
      continue;
    }
    if (!part.includes('\uFFFD')) return undefined;
    let names: Buffer[];
    try {
      names = readdirSync(at, { encoding: 'buffer' });
    } catch {
      return undefined;
    }
    const meant = names.find((name) => !isUtf8(name) && name.toString('utf8') === part);
    return meant && path.join(at, decodeName(meant));
  }
  return undefined;
}
