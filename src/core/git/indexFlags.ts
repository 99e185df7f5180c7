/**
 * Whether a worktree's index holds any entry flagged assume-unchanged or
 * skip-worktree, and which entries carry those flags or intent-to-add (for the
 * evidence: indexFlagState.ts), read from the index file itself (no process). Almost no
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
 * skip-worktree, 0x2000 intent-to-add), then the path: NUL-terminated and padded to 8 bytes in
 * versions 2 and 3, prefix-compressed (a varint, then the rest, NUL-ended) in
 * version 4.
 */
import * as path from 'node:path';
import { worktreeGitDir } from './headFiles';
import { decodeName } from './pathBytes';
import { readGitBytes } from './gitFileText';

const STAT_BYTES = 40;
const ASSUME_VALID = 0x8000;
const EXTENDED = 0x4000;
const NAME_MASK = 0x0fff;
const SKIP_WORKTREE = 0x4000;
const INTENT_TO_ADD = 0x2000;
const STAGE_MASK = 0x3000;
/** Where an entry's mode sits in its stat data (after ctime, mtime, dev and ino). */
const MODE_OFFSET = 24;

/** One version-4 varint (git's offset encoding) at `at`: its value and the offset after it, or undefined. */
function readVarint(buf: Buffer, at: number): { value: number; at: number } | undefined {
  if (at >= buf.length) return undefined;
  let c = buf[at++];
  let value = c & 0x7f;
  while (c & 0x80) {
    if (at >= buf.length) return undefined;
    c = buf[at++];
    value = (value + 1) * 128 + (c & 0x7f);
  }
  return { value, at };
}

/** One index entry as the file holds it. */
export interface RawIndexEntry {
  /** The 16-bit flags: 0x8000 assume-valid, 0x3000 the stage. */
  flags: number;
  /** The extended flags (version 3+): 0x4000 skip-worktree, 0x2000 intent-to-add; 0 when none. */
  extended: number;
  /** The entry's mode (0o40000 for a sparse index's folder). */
  mode: number;
}

/**
 * Walks the entries with `idBytes`-long object ids, calling `visit` for each (with its name's bytes when
 * `names`); `visit` returning true stops the walk. Gives where the entries end, 'stopped', or undefined
 * when they do not parse.
 */
function walkEntries(buf: Buffer, version: number, count: number, idBytes: number, names: boolean, visit: (e: RawIndexEntry, name: Buffer | null) => boolean): number | 'stopped' | undefined {
  let at = 12;
  let previous = Buffer.alloc(0);
  for (let i = 0; i < count; i++) {
    const start = at;
    at += STAT_BYTES + idBytes;
    if (at + 2 > buf.length) return undefined;
    const mode = buf.readUInt32BE(start + MODE_OFFSET);
    const flags = buf.readUInt16BE(at);
    at += 2;
    let extended = 0;
    if (flags & EXTENDED) {
      if (version < 3 || at + 2 > buf.length) return undefined;
      extended = buf.readUInt16BE(at);
      at += 2;
    }
    let strip = 0;
    if (version === 4) {
      const varint = readVarint(buf, at);
      if (varint === undefined || (names && varint.value > previous.length)) return undefined;
      strip = varint.value;
      at = varint.at;
    }
    const nul = buf.indexOf(0, at);
    if (nul < 0) return undefined;
    // A name shorter than 0xFFF is stored whole in versions 2 and 3: its length must match.
    const nameLength = flags & NAME_MASK;
    if (version !== 4 && nameLength < NAME_MASK && nul - at !== nameLength) return undefined;
    let name: Buffer | null = null;
    if (version === 4 && names) name = previous = Buffer.concat([previous.subarray(0, previous.length - strip), buf.subarray(at, nul)]);
    else if (names) name = buf.subarray(at, nul);
    if (visit({ flags, extended, mode }, name)) return 'stopped';
    at = nul + 1;
    if (version !== 4) at = start + Math.ceil((at - start) / 8) * 8;
  }
  return at;
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

/**
 * Walks the index file's entries (see walkEntries) when this reader knows the file for sure: true
 * when it did (or `visit` stopped it), undefined when git must be asked. A walk that fails with
 * SHA-1 ids and is tried again with SHA-256 ones calls `restart` first.
 */
function walkIndexFile(buf: Buffer, names: boolean, visit: (e: RawIndexEntry, name: Buffer | null) => boolean, restart: () => void): true | undefined {
  if (buf.length < 12 || buf.toString('latin1', 0, 4) !== 'DIRC') return undefined;
  const version = buf.readUInt32BE(4);
  if (version < 2 || version > 4) return undefined;
  const count = buf.readUInt32BE(8);
  // The object id's length is not in the index: SHA-1 (20 bytes) unless the entries only parse as SHA-256 (32).
  for (const idBytes of [20, 32]) {
    restart();
    const end = walkEntries(buf, version, count, idBytes, names, visit);
    if (end === undefined) continue;
    if (end === 'stopped') return true;
    return entriesAreAll(buf, end, idBytes) ? true : undefined;
  }
  return undefined;
}

async function readIndexFile(worktree: string, env?: NodeJS.ProcessEnv): Promise<Buffer | undefined> {
  if (env?.GIT_INDEX_FILE ?? process.env.GIT_INDEX_FILE) return undefined;
  // A registration given as GIT_DIR (a worktree whose link was cut: worktreeGitEnv) is the one to read, never the worktree's .git.
  const gitDir = env?.GIT_DIR ?? (await worktreeGitDir(worktree));
  return gitDir === undefined ? undefined : readGitBytes(path.join(gitDir, 'index'));
}

/** True or false when the index file answers for sure; undefined when git must be asked. */
export async function indexHasFlaggedEntries(worktree: string, env?: NodeJS.ProcessEnv): Promise<boolean | undefined> {
  try {
    const buf = await readIndexFile(worktree, env);
    if (buf === undefined) return undefined;
    let flagged = false;
    const visit = (e: RawIndexEntry) => (flagged = (e.flags & ASSUME_VALID) !== 0 || (e.extended & SKIP_WORKTREE) !== 0);
    return walkIndexFile(buf, false, visit, () => (flagged = false)) ? flagged : undefined;
  } catch {
    return undefined;
  }
}

/** The paths of an index's entries that carry a flag git's tree cannot hold. */
export interface IndexFlagLists {
  /** `git add -N`: in the index with no content yet (no tree holds it: the path reads untracked without it). */
  intentToAdd: string[];
  assumeUnchanged: string[];
  skipWorktree: string[];
}

/** Whether an entry is one of a sparse index's folders (which stand for the files below them). */
const isSparseFolder = (e: RawIndexEntry) => (e.mode & 0o170000) === 0o040000;

/**
 * The flagged paths of an index file's bytes (stage 0 only: a conflict's stages carry none that
 * matter), with no process; undefined when this reader does not know the file for sure (a split or
 * sparse index, an unknown version): ask git then.
 */
export function indexFlagListsOf(buf: Buffer): IndexFlagLists | undefined {
  let lists: IndexFlagLists = { intentToAdd: [], assumeUnchanged: [], skipWorktree: [] };
  let sparse = false;
  const visit = (e: RawIndexEntry, name: Buffer | null): boolean => {
    if (isSparseFolder(e)) return (sparse = true);
    if ((e.flags & STAGE_MASK) !== 0 || (!(e.flags & ASSUME_VALID) && !(e.extended & (SKIP_WORKTREE | INTENT_TO_ADD)))) return false;
    const p = decodeName(name!);
    if (e.extended & INTENT_TO_ADD) lists.intentToAdd.push(p);
    if (e.flags & ASSUME_VALID) lists.assumeUnchanged.push(p);
    if (e.extended & SKIP_WORKTREE) lists.skipWorktree.push(p);
    return false;
  };
  const restart = () => {
    lists = { intentToAdd: [], assumeUnchanged: [], skipWorktree: [] };
    sparse = false;
  };
  return walkIndexFile(buf, true, visit, restart) && !sparse ? lists : undefined;
}
