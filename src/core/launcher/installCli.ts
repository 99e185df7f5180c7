/**
 * "Install 'paddock' Command in PATH" (as VS Code's "Install 'code' command"):
 * writes a `paddock` launcher into a folder on PATH that runs the extension's
 * bundled CLI with VS Code's own runtime, so people who installed the VSIX
 * have the CLI without npm. Which folders qualify is decided here; asking the
 * person is the adapter's job.
 */
import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { failure } from '../common/errors';
import { LAUNCHER_MARKER, launcherScript } from './launcherScript';
import { makeDirsSync } from '../common/makeDirs';
import { writeFileDurableSync } from '../store/durable';

export const LAUNCHER_NAME = 'paddock';

export interface InstallTarget {
  readonly dir: string;
  /** The folder exists and can be written, or can be created. */
  readonly writable: boolean;
  /** The folder is on PATH: a new shell finds `paddock` there. */
  readonly onPath: boolean;
}

/** The nearest existing folder at or above `dir`. */
function nearestExisting(dir: string): string {
  let current = path.resolve(dir);
  while (!existsSync(current)) {
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return current;
}

function canWrite(dir: string): boolean {
  try {
    const existing = nearestExisting(dir);
    if (!statSync(existing).isDirectory()) return false;
    accessSync(existing, constants.W_OK | constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `dir` is one of PATH's folders. */
export function isOnPath(dir: string, env: NodeJS.ProcessEnv): boolean {
  const resolved = path.resolve(dir);
  return (env.PATH ?? '').split(path.delimiter).some((entry) => entry !== '' && path.resolve(entry) === resolved);
}

/** The places a launcher may go, in the order offered: the system-wide folder, then the person's own. */
export function installTargets(homeDir: string, env: NodeJS.ProcessEnv, systemDir = '/usr/local/bin'): InstallTarget[] {
  return [systemDir, path.join(homeDir, '.local', 'bin')].map((dir) => ({ dir, writable: canWrite(dir), onPath: isOnPath(dir, env) }));
}

export interface InstallRequest {
  /** The folder to write `paddock` into (created when missing). */
  readonly dir: string;
  readonly execPath: string;
  readonly cliScript: string;
  /** The store to pin (the `paddock.storePath` setting), or undefined for the CLI's default. */
  readonly home?: string;
}

/**
 * Writes `<dir>/paddock` (0755) and returns its path. Replaces a launcher
 * Paddock wrote before (e.g. for an older extension version); refuses to
 * overwrite any other file of that name.
 */
export function installCli(request: InstallRequest): string {
  if (!existsSync(request.cliScript)) throw failure(`The Paddock CLI bundle ${request.cliScript} is missing; reinstall the extension.`);
  const target = path.join(request.dir, LAUNCHER_NAME);
  if (existsSync(target)) {
    let text: string;
    try {
      text = readFileSync(target, 'utf8');
    } catch {
      text = '';
    }
    if (!text.split('\n').includes(LAUNCHER_MARKER)) {
      throw failure(`${target} already exists and was not written by Paddock; remove or rename it, then install again.`);
    }
  }
  try {
    makeDirsSync(request.dir);
    const script = launcherScript({
      execPath: request.execPath,
      cliScript: request.cliScript,
      home: request.home,
      purpose: "Written by Paddock's \"Install 'paddock' Command in PATH\": the extension's CLI with VS Code's runtime.",
      whenMissing: `paddock: the Paddock extension this launcher was written for is gone (updated or uninstalled); run "Paddock: Install 'paddock' Command in PATH" again.`,
    });
    // The one durable write (a new temp file beside the target, fsynced, renamed): a concurrent
    // `paddock` never runs half a script, and a file already at some temp name is never written through.
    writeFileDurableSync(target, script, 0o755);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') throw failure(`Paddock cannot write to ${request.dir} (${code}).`);
    throw err;
  }
  return target;
}
