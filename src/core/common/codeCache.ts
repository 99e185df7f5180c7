/**
 * Runs a bundle with V8's code cache, for the short-lived processes Paddock
 * starts often (`paddock` commands: a hook calls `paddock signal` many times an
 * hour; workers: one per agent start). Compiling a few hundred KB of
 * JavaScript is a large share of such a process.
 *
 * The cache is the compiled code V8 hands back after a run (functions compiled
 * while it ran included), kept in the user's cache folder, one file per bundle
 * identity (size, modification time and inode), Node version and architecture;
 * V8 itself refuses data made by another version or with other flags. It is
 * used only from a folder that is the user's own and not writable by others
 * (compiled code is code). Anything unusual — no cache folder, unreadable or
 * rejected data — compiles the bundle the ordinary way and writes a fresh
 * cache; PADDOCK_CODE_CACHE=off turns it off. Either way the bundle runs as the
 * program's main module.
 *
 * Node built-ins only: the entry points that use this must stay small.
 */
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vm from 'node:vm';
import { makeDirsSync } from './makeDirs';

interface Cache {
  file: string;
  data: Buffer | undefined;
}

/** The user's own cache folder for compiled code, created private; undefined when it is not safe to use. */
function cacheFolder(env: NodeJS.ProcessEnv): string | undefined {
  if (env.PADDOCK_CODE_CACHE === 'off' || typeof process.getuid !== 'function') return undefined;
  const base = env.XDG_CACHE_HOME || path.join(env.HOME || os.homedir(), '.cache');
  // A path Node misread from bytes that are not UTF-8 names another folder: the CLI refuses such a HOME (bug 143), and nothing is written there first.
  if (base.includes('\uFFFD')) return undefined;
  const dir = path.join(base, 'paddock', 'code-cache');
  try {
    makeDirsSync(dir, 0o700);
    const st = fs.lstatSync(dir);
    if (!st.isDirectory() || st.uid !== process.getuid() || (st.mode & 0o022) !== 0) return undefined;
    return dir;
  } catch {
    return undefined;
  }
}

function openCache(bundle: string, name: string): Cache | undefined {
  const dir = cacheFolder(process.env);
  if (dir === undefined) return undefined;
  try {
    const st = fs.statSync(bundle, { bigint: true });
    const file = path.join(dir, `${name}-${st.size}-${st.mtimeNs}-${st.ino}-${process.version}-${process.arch}.bin`);
    let data: Buffer | undefined;
    try {
      const cst = fs.lstatSync(file);
      if (cst.isFile() && cst.uid === process.getuid!()) data = fs.readFileSync(file);
    } catch {
      data = undefined; // not written yet
    }
    return { file, data };
  } catch {
    return undefined;
  }
}

/** Whether a cache file is one of `name`'s (its size comes next): `cli`'s are not `cli-list`'s. */
function isCacheOf(entry: string, name: string): boolean {
  return entry.startsWith(`${name}-`) && /^\d/.test(entry.slice(name.length + 1));
}

/** Caches of other builds (an update, another install) unused this long are removed when a new one is written. */
const STALE_MS = 14 * 24 * 3600 * 1000;

/** A long-running process (a worker, `paddock attach`) writes its cache this long after it began. */
const SAVE_AFTER_MS = 1500;

/**
 * Written once, atomically (concurrent processes each write a whole file): when the process exits
 * or SAVE_AFTER_MS after it began, whichever comes first, so that what start-up compiled is in it.
 */
function saveSoon(script: vm.Script, file: string, name: string): void {
  let saved = false;
  const save = (): void => {
    if (saved) return;
    saved = true;
    try {
      // Not store/durable.ts: no fsync at every exit for a cache whose loss costs one compile, and this
      // file is in the launchers' tiny first bundle.
      const tmp = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, script.createCachedData(), { mode: 0o600 });
      fs.renameSync(tmp, file);
      const dir = path.dirname(file);
      for (const entry of fs.readdirSync(dir)) {
        const other = path.join(dir, entry);
        if (other !== file && isCacheOf(entry, name) && Date.now() - fs.statSync(other).atimeMs > STALE_MS) fs.rmSync(other, { force: true });
      }
    } catch {
      // A cache that cannot be written only costs the next process its compile.
    }
  };
  process.once('exit', save);
  setTimeout(save, SAVE_AFTER_MS).unref();
}

/**
 * Runs `bundle` (a CommonJS bundle) as the program's main module, as `node bundle` would, compiled
 * with the code cache named `name` when one is usable.
 */
export function runBundleWithCodeCache(bundle: string, name: string): void {
  const cache = openCache(bundle, name);
  // Same length as the file, so positions in stack traces stay right: a shebang becomes a comment.
  let source = fs.readFileSync(bundle, 'utf8');
  if (source.startsWith('#!')) source = `//${source.slice(2)}`;
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: bundle, cachedData: cache?.data });
  if (cache !== undefined && (cache.data === undefined || script.cachedDataRejected === true)) saveSoon(script, cache.file, name);
  const requireFromBundle = createRequire(bundle);
  const mainModule = { exports: {}, filename: bundle, id: '.', loaded: false, children: [], paths: [] as string[] };
  // A bundle may run only as the program's main module (`require.main === module`).
  requireFromBundle.main = mainModule as unknown as NodeJS.Module;
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(mainModule.exports, mainModule.exports, requireFromBundle, mainModule, bundle, path.dirname(bundle));
}
