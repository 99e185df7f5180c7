/**
 * The evidence archive: what git cannot hold (ignored files, empty folders,
 * nested repositories with their `.git`) as a POSIX (pax) tar made by the
 * system's `tar`, which keeps modes, symlinks, empty directories and file
 * types exactly and exists on every platform Paddock runs on.
 *
 * A tar is written to a temporary file, fsynced and listed back before it is
 * renamed into place: a full disk or a file that vanished mid-read fails the
 * capture instead of leaving a short archive that looks complete.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { failure } from '../common/errors';

/** A tar of thousands of files on a slow disk still ends well inside this. */
const TAR_TIMEOUT_MS = 10 * 60 * 1000;

interface TarResult {
  stdout: string;
  stderr: string;
  code: number;
}

function runTar(args: string[], opts: { cwd: string; input?: string }): Promise<TarResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('tar', args, { cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
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

/**
 * Writes `entries` (paths relative to `root`, parents before children; folders
 * are stored as themselves, not with their contents) to a temporary tar beside
 * `target`, verified; returns the temporary path for the caller to rename.
 */
export async function writeArchiveTemp(root: string, entries: readonly string[], target: string): Promise<string> {
  await fs.mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
  const temp = `${target}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    const list = entries.map((e) => `./${e}\0`).join('');
    const made = await runTar(['--create', '--format=pax', '--no-recursion', '--null', '--files-from=-', '--file', temp], { cwd: root, input: list });
    if (made.code !== 0) throw failure(`Could not archive files of ${root}: ${tarError(made.stderr, made.code)}.`);
    await fs.chmod(temp, 0o600);
    await syncFile(temp);
    // Read back: a short write (ENOSPC) or a file that changed size mid-read shows here.
    const listed = await runTar(['--list', '--file', temp], { cwd: root });
    if (listed.code !== 0) throw failure(`The archive of ${root} could not be read back: ${tarError(listed.stderr, listed.code)}.`);
    const count = listed.stdout.split('\n').filter((l) => l.length > 0).length;
    if (count < entries.length) throw failure(`The archive of ${root} holds ${count} of ${entries.length} entries.`);
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
