/**
 * A file by device and inode: what makes it that file, whatever its name. Socket files are judged
 * by it before they are replaced or removed (a worker may put its live socket at a path at any
 * moment, so a name alone proves nothing).
 */
import type { Stats } from 'node:fs';

export interface FileId {
  dev: number;
  ino: number;
}

export function fileIdOf(st: Stats): FileId {
  return { dev: st.dev, ino: st.ino };
}

export function isSameFile(st: Stats | undefined, id: FileId | undefined): boolean {
  return st !== undefined && id !== undefined && st.dev === id.dev && st.ino === id.ino;
}
