/**
 * Bytes that git's conversions would change. `git add` runs a file through
 * its clean filter, `ident` and end-of-line conversion (`.gitattributes`,
 * core.autocrlf), and a checkout runs the blob through the smudge side: a
 * `a\r\nb\n` under `eol=crlf` comes back `a\r\nb\r\n`, `$Id: x $` as the blob
 * id, an upper-casing clean filter's input never. The snapshot tree keeps
 * git's form (its patch and the agent's diff stay what git shows); beside it,
 * every file git may convert is hashed again as it is on disk (`hash-object
 * --no-filters`) into a second tree, the "exact" commit the snapshot takes as
 * its last parent, and restore writes those bytes back without conversion
 * wherever a checkout did not reproduce them.
 *
 * Only files an attribute or core.autocrlf touches are hashed twice
 * (conversions.ts): in a repository without either nothing more runs than one
 * `git config` (measured on 5,000 files: check-attr 80–190 ms, hashing them
 * all again 270–370 ms). Only files that `add` changed or that a checkout
 * would write otherwise go into the exact tree.
 */
import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { failure } from '../common/errors';
import { convertibleFiles, type ConvertibleOptions, type IndexFile } from './conversions';
import { encodeName, fsPath } from './pathBytes';
import { firstLine, GIT_BULK_TIMEOUT_MS, runGit } from './runGit';
import { removeScratch, type ScratchLog } from './scratch';

export type { IndexFile } from './conversions';

/** A path for `--stdin-paths`, which reads lines and unquotes C-style quoted ones (names may hold newlines). */
function quoted(p: string): string {
  return `"${p.replace(/[\\"]/g, (c) => `\\${c}`).replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t')}"`;
}

/** The blob ids of `paths` (relative to cwd) as they are on disk, written to the object store when `write`. */
async function rawShas(cwd: string, paths: readonly string[], write: boolean): Promise<string[]> {
  const res = await runGit(['hash-object', ...(write ? ['-w'] : []), '--no-filters', '--stdin-paths'], {
    cwd,
    input: encodeName(paths.map((p) => `${quoted(p)}\n`).join('')), // names as bytes (pathBytes.ts)
    allowFailure: true,
    timeoutMs: GIT_BULK_TIMEOUT_MS,
  });
  if (res.code !== 0) throw failure(`Could not read the files of ${cwd} byte for byte: ${firstLine(res.stderr)}`);
  const shas = res.stdout.split('\n').filter((l) => l.length > 0);
  if (shas.length !== paths.length) throw failure(`Could not read the files of ${cwd} byte for byte: ${shas.length} of ${paths.length} hashed.`);
  return shas;
}

export interface ExactCapture {
  /** A parentless commit whose tree holds each convertible file's bytes as on disk. */
  commit: string;
  files: number;
}

export interface ExactOptions extends ConvertibleOptions {
  /** A scratch index file that does not exist yet. */
  exactIndex: string;
}

/** The exact bytes of the convertible files, as a commit for the snapshot to keep; null when git converts nothing here. */
export async function captureExactBytes(opts: ExactOptions): Promise<ExactCapture | null> {
  const { worktree, env } = opts;
  const convertible = await convertibleFiles(opts);
  if (convertible.length === 0) return null;
  const shas = await rawShas(worktree, convertible.map((f) => f.path), false);
  // Kept: files whose bytes `add` changed, and files a checkout would write otherwise than they are.
  const kept = convertible.map((f, i) => ({ ...f, sha: shas[i], changed: shas[i] !== f.sha })).filter((f) => f.changed || f.smudges);
  if (kept.length === 0) return null;
  // Only these go into the object store (hash-object -w again: the file may have changed since, and
  // then the id to record is the one of the bytes written).
  const written = await rawShas(worktree, kept.map((f) => f.path), true);
  const indexEnv = { ...env, GIT_INDEX_FILE: opts.exactIndex };
  const info = kept.map((f, i) => `${f.mode} ${written[i]}\t${f.path}\0`).join('');
  await runGit(['update-index', '-z', '--index-info'], { cwd: worktree, env: indexEnv, input: encodeName(info), timeoutMs: GIT_BULK_TIMEOUT_MS });
  const tree = (await runGit(['write-tree'], { cwd: worktree, env: indexEnv })).stdout.trim();
  const commit = (await runGit(['commit-tree', tree], { cwd: worktree, env, input: 'paddock: exact bytes of the files git converts\n' })).stdout.trim();
  return { commit, files: kept.length };
}

/** Copies `length` bytes at `offset` of `from` into a new `to` (truncated; an existing file keeps its mode). */
async function copyRange(from: FileHandle, offset: number, length: number, to: string | Buffer, mode: number): Promise<void> {
  const out = await fs.open(to, 'w', mode);
  try {
    const buf = Buffer.alloc(Math.min(length, 1024 * 1024) || 1);
    let done = 0;
    while (done < length) {
      const { bytesRead } = await from.read(buf, 0, Math.min(buf.length, length - done), offset + done);
      if (bytesRead === 0) throw failure('git cat-file ended early.');
      await out.write(buf, 0, bytesRead);
      done += bytesRead;
    }
  } finally {
    await out.close();
  }
}

/** Writes the blobs `entries` name into `target` as they are, through one `cat-file --batch` into a scratch file. */
async function writeBlobs(target: string, entries: readonly IndexFile[], log?: ScratchLog): Promise<void> {
  const scratch = await fs.mkdtemp(path.join(tmpdir(), 'paddock-exact-'));
  try {
    const batch = path.join(scratch, 'blobs');
    const out = await fs.open(batch, 'w', 0o600);
    try {
      await runGit(['cat-file', '--batch'], { cwd: target, input: entries.map((e) => `${e.sha}\n`).join(''), stdoutFd: out.fd, timeoutMs: GIT_BULK_TIMEOUT_MS });
    } finally {
      await out.close();
    }
    const blobs = await fs.open(batch, 'r');
    try {
      let at = 0;
      const head = Buffer.alloc(256);
      for (const e of entries) {
        const { bytesRead } = await blobs.read(head, 0, head.length, at);
        const eol = head.subarray(0, bytesRead).indexOf(0x0a);
        const [sha, type, size] = head.subarray(0, Math.max(eol, 0)).toString('latin1').split(' ');
        if (eol < 0 || sha !== e.sha || type !== 'blob') throw failure(`The snapshot's exact copy of ${e.path} is not in the repository.`);
        await copyRange(blobs, at + eol + 1, Number(size), fsPath(path.join(target, e.path)), e.mode === '100755' ? 0o755 : 0o644);
        at += eol + 1 + Number(size) + 1;
      }
    } finally {
      await blobs.close();
    }
  } finally {
    await removeScratch(scratch, { log }); // never in place of the error thrown (bug 188)
  }
}

/** Of `entries` (files of `target`), each whose bytes on disk are not its blob is written as its blob, then proved; returns how many. */
async function rewriteDiffering(target: string, entries: readonly IndexFile[], log?: ScratchLog): Promise<number> {
  if (entries.length === 0) return 0;
  const onDisk = await rawShas(target, entries.map((e) => e.path), false);
  const differing = entries.filter((e, i) => onDisk[i] !== e.sha);
  if (differing.length === 0) return 0;
  await writeBlobs(target, differing, log);
  const proof = await rawShas(target, differing.map((e) => e.path), false);
  const wrong = differing.find((e, i) => proof[i] !== e.sha);
  if (wrong) throw failure(`Could not restore ${wrong.path} byte for byte.`);
  return differing.length;
}

/** Regular-file entries of a NUL-separated `ls-tree -r` (`mode type sha\tpath`) or `ls-files -s` (`mode sha stage\tpath`) listing. */
function fileEntries(listing: string, shaField: number): IndexFile[] {
  const entries: IndexFile[] = [];
  for (const line of listing.split('\0')) {
    const tab = line.indexOf('\t');
    if (tab < 0) continue;
    const fields = line.slice(0, tab).split(' ');
    entries.push({ mode: fields[0], sha: fields[shaField], path: line.slice(tab + 1) });
  }
  return entries;
}

/**
 * Puts the exact bytes of `commit` (an ExactCapture) back into a checked-out `target`: each file
 * whose bytes on disk differ is written again, and then all of them must hash to their blob.
 * Returns how many were written again.
 */
export async function restoreExactBytes(target: string, commit: string, log?: ScratchLog): Promise<number> {
  const listed = await runGit(['ls-tree', '-r', '-z', '--full-tree', commit], { cwd: target, timeoutMs: GIT_BULK_TIMEOUT_MS, names: true });
  return rewriteDiffering(target, fileEntries(listed.stdout, 2), log);
}

/**
 * Each regular file of `target`'s index that is on disk and differs from its blob is written as its
 * blob (restore.ts, after its checkout): whatever conversion the checkout made, from whatever setting or
 * attribute source, the bytes are proved against the blob instead of trusted to settings.
 */
export async function restoreBlobBytes(target: string, log?: ScratchLog): Promise<number> {
  const listed = await runGit(['ls-files', '-s', '-z'], { cwd: target, timeoutMs: GIT_BULK_TIMEOUT_MS, names: true });
  const files = fileEntries(listed.stdout, 1).filter((e) => e.mode === '100644' || e.mode === '100755');
  // A path the sparse checkout left out is not on disk; a symlink in its place is not ours to write through.
  const present = await Promise.all(files.map((e) => fs.lstat(fsPath(path.join(target, e.path))).then((st) => st.isFile(), () => false)));
  return rewriteDiffering(target, files.filter((_, i) => present[i]), log);
}
