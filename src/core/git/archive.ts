/**
 * The evidence archive: what git cannot hold (ignored files, empty folders,
 * nested repositories with their `.git`) as a POSIX (pax) tar made by the
 * system's `tar`, which keeps modes, symlinks, empty directories and file
 * types exactly and exists on every platform Paddock runs on.
 *
 * A tar is written to a temporary file, fsynced and read back before it is
 * renamed into place: every entry must be there under its own name, each file
 * with the size the walk saw, so a full disk, a file that changed or vanished
 * mid-read, or an option that renames or drops entries fails the capture
 * instead of leaving an archive that looks complete.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { failure } from '../common/errors';
import { tarEntries } from './tarEntries';

/** A tar of thousands of files on a slow disk still ends well inside this. */
const TAR_TIMEOUT_MS = 10 * 60 * 1000;

interface TarResult {
  stdout: string;
  stderr: string;
  code: number;
}

/**
 * tar runs with only what it needs from the environment: GNU tar reads options from TAR_OPTIONS
 * (`--transform`, `--exclude`…), TAPE and POSIXLY_CORRECT change its defaults, and a compressor's
 * variables reach what it may start; any of them would change the archive behind the capture's back.
 */
function tarEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { LC_ALL: 'C' };
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'SystemRoot', 'SYSTEMROOT']) if (process.env[name] !== undefined) env[name] = process.env[name];
  return env;
}

function runTar(args: string[], opts: { cwd: string; input?: string }): Promise<TarResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('tar', args, { cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'], env: tarEnv() });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const timer = setTimeout(() => child.kill('SIGKILL'), TAR_TIMEOUT_MS);
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(failure(`Could not run tar: ${e.message}.`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        code: code ?? (signal ? 128 : 1),
      });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.input ?? '');
  });
}

function tarError(stderr: string, code: number): string {
  const line = stderr
    .split('\n')
    .map((l) => l.replace(/^tar: /, '').trim())
    .find((l) => l.length > 0);
  return line ?? `exit code ${code}`;
}

async function syncFile(file: string): Promise<void> {
  const handle = await fs.open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export async function syncDir(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** What an archive must hold: each path in order, files with the size the walk saw. */
export interface ArchiveEntry {
  path: string;
  /** A regular file's size; undefined for folders, symlinks and the rest. */
  fileSize?: number;
}

/** The first way the archive differs from what was meant to go in it, or null. */
async function archiveMismatch(temp: string, entries: readonly ArchiveEntry[]): Promise<string | null> {
  const listed = await tarEntries(temp);
  for (let i = 0; i < Math.max(listed.length, entries.length); i++) {
    const meant = entries[i];
    const got = listed[i];
    if (!meant) return `it holds ${got.name}, which was not meant to be in it`;
    if (!got || got.name !== `./${meant.path}`) return `${meant.path} is missing from it`;
    // A hard link to a file stored earlier has no data of its own.
    if (meant.fileSize !== undefined && got.type !== '1' && got.size !== meant.fileSize) {
      return `${meant.path} holds ${got.size} bytes instead of ${meant.fileSize} (it changed while being archived)`;
    }
  }
  return null;
}

/**
 * Writes `entries` (paths relative to `root`, parents before children; folders
 * are stored as themselves, not with their contents) to a temporary tar beside
 * `target`, verified; returns the temporary path for the caller to rename.
 */
export async function writeArchiveTemp(root: string, entries: readonly ArchiveEntry[], target: string): Promise<string> {
  await fs.mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
  const temp = `${target}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    const list = entries.map((e) => `./${e.path}\0`).join('');
    const made = await runTar(['--create', '--format=pax', '--no-recursion', '--null', '--files-from=-', '--file', temp], { cwd: root, input: list });
    if (made.code !== 0) throw failure(`Could not archive files of ${root}: ${tarError(made.stderr, made.code)}.`);
    await fs.chmod(temp, 0o600);
    await syncFile(temp);
    // Read back: a short write (ENOSPC) or a file that changed size mid-read shows here.
    const mismatch = await archiveMismatch(temp, entries);
    if (mismatch) throw failure(`The archive of ${root} does not hold what was meant: ${mismatch}.`);
    return temp;
  } catch (err) {
    await fs.rm(temp, { force: true });
    throw err;
  }
}

/** Unpacks an archive into `dir` (which exists), keeping modes. */
export async function extractArchive(archive: string, dir: string): Promise<void> {
  const res = await runTar(['--extract', '--preserve-permissions', '--file', archive], { cwd: dir });
  if (res.code !== 0) throw failure(`Could not unpack ${archive}: ${tarError(res.stderr, res.code)}.`);
}
