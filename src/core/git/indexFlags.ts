/**
 * Whether a worktree's index holds any entry flagged assume-unchanged or
 * skip-worktree, read from the index file itself (no process). Almost no
 * index has one, and asking git (`ls-files -s -v`) on every check for local
 * changes cost a process each: 20–40 ms more per merge of the 5,000-file repo
 * on 2 cores. Anything this reader does not know for sure (a split index, an
 * unknown version, a damaged file, an index set by GIT_INDEX_FILE) answers
 * undefined: ask git then.
 *
 * Format (git's Documentation/gitformat-index.txt): "DIRC", version, entry
 * count; each entry 40 bytes of stat data, the object id (20 or 32 bytes),
 * 16 bits of flags (0x8000 assume-valid, 0x4000 extended, low 12 bits the
 * name's length), in version 3+ extended flags when 0x4000 is set (0x4000
 * skip-worktree), then the path: NUL-terminated and padded to 8 bytes in
 * versions 2 and 3, prefix-compressed (a varint, then the rest, NUL-ended) in
 * version 4.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { worktreeGitDir } from './headFiles';

const STAT_BYTES = 40;
const ASSUME_VALID = 0x8000;
const EXTENDED = 0x4000;
const NAME_MASK = 0x0fff;
const SKIP_WORKTREE = 0x4000;

/** Reads past one version-4 varint (git's offset encoding); returns the offset after it, or -1. */
function skipVarint(buf: Buffer, at: number): number {
  while (at < buf.length) if ((buf[at++] & 0x80) === 0) return at;
  return -1;
}

type Scan = { flagged: true } | { flagged: false; end: number };

/** Whether the entries parse with `idBytes`-long object ids: a flagged entry, or where the entries end; undefined when they do not parse. */
function scanEntries(buf: Buffer, version: number, count: number, idBytes: number): Scan | undefined {
  let at = 12;
  for (let i = 0; i < count; i++) {
    const start = at;
    at += STAT_BYTES + idBytes;
    if (at + 2 > buf.length) return undefined;
    const flags = buf.readUInt16BE(at);
    at += 2;
    if (flags & ASSUME_VALID) return { flagged: true };
    if (flags & EXTENDED) {
      if (version < 3 || at + 2 > buf.length) return undefined;
      if (buf.readUInt16BE(at) & SKIP_WORKTREE) return { flagged: true };
      at += 2;
    }
    if (version === 4) {
      at = skipVarint(buf, at);
      if (at < 0) return undefined;
    }
    const nul = buf.indexOf(0, at);
    if (nul < 0) return undefined;
    // A name shorter than 0xFFF is stored whole in versions 2 and 3: its length must match.
    const nameLength = flags & NAME_MASK;
    if (version !== 4 && nameLength < NAME_MASK && nul - at !== nameLength) return undefined;
    at = nul + 1;
    if (version !== 4) at = start + Math.ceil((at - start) / 8) * 8;
  }
  return { flagged: false, end: at };
}

/**
 * Whether the extensions after the entries (signature, size, data; then the file's checksum) are
 * all readable and none is `link`: a split index keeps most entries in another file.
 */
function entriesAreAll(buf: Buffer, end: number, idBytes: number): boolean {
  let at = end;
  while (at + 8 <= buf.length - idBytes) {
    if (buf.toString('latin1', at, at + 4) === 'link') return false;
    at += 8 + buf.readUInt32BE(at + 4);
  }
  return at === buf.length - idBytes;
}

/** True or false when the index file answers for sure; undefined when git must be asked. */
export async function indexHasFlaggedEntries(worktree: string, env?: NodeJS.ProcessEnv): Promise<boolean | undefined> {
  if (env?.GIT_INDEX_FILE ?? process.env.GIT_INDEX_FILE) return undefined;
  try {
    const gitDir = await worktreeGitDir(worktree);
    if (gitDir === undefined) return undefined;
    const buf = await fs.readFile(path.join(gitDir, 'index'));
    if (buf.length < 12 || buf.toString('latin1', 0, 4) !== 'DIRC') return undefined;
    const version = buf.readUInt32BE(4);
    if (version < 2 || version > 4) return undefined;
    const count = buf.readUInt32BE(8);
    // The object id's length is not in the index: SHA-1 (20 bytes) unless the entries only parse as SHA-256 (32).
    for (const idBytes of [20, 32]) {
      const scan = scanEntries(buf, version, count, idBytes);
      if (scan === undefined) continue;
      if (scan.flagged) return true;
      return entriesAreAll(buf, scan.end, idBytes) ? false : undefined;
    }
    return undefined;
  } catch {
    return undefined;
  }
}
