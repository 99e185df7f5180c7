#!/usr/bin/env node
/**
 * `paddock`'s entry point (dist/cli.js): runs the CLI bundle (dist/cliMain.js)
 * with V8's code cache, so a command does not compile the bundle again on
 * every run. A `paddock` process is short (a hook calls `paddock signal` many
 * times an hour) and compiling ~350 KB of JavaScript is a large share of it.
 *
 * The cache is the compiled code V8 hands back after a run (functions compiled
 * while it ran included), kept in the user's cache folder, one file per bundle
 * identity (size, modification time and inode of dist/cliMain.js), Node version
 * and architecture; V8 itself refuses data made by another version or with
 * other flags. It is used only from a folder that is the user's own and not
 * writable by others (compiled code is code). Anything unusual — no cache
 * folder, unreadable or rejected data — runs the bundle the ordinary way and
 * writes a fresh cache; PADDOCK_CODE_CACHE=off turns it off. Either way the bundle
 * runs as the program's main module, as `node dist/cliMain.js` would run it.
 *
 * No import from the rest of the CLI: this file must stay small and load nothing.
 */
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vm from 'node:vm';

const MAIN = path.join(__dirname, 'cliMain.js');

interface Cache {
  file: string;
  data: Buffer | undefined;
}

/** The user's own cache folder for compiled code, created private; undefined when it is not safe to use. */
function cacheFolder(env: NodeJS.ProcessEnv): string | undefined {
  if (env.PADDOCK_CODE_CACHE === 'off' || typeof process.getuid !== 'function') return undefined;
  const base = env.XDG_CACHE_HOME || path.join(env.HOME || os.homedir(), '.cache');
  const dir = path.join(base, 'paddock', 'code-cache');
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = fs.lstatSync(dir);
    if (!st.isDirectory() || st.uid !== process.getuid() || (st.mode & 0o022) !== 0) return undefined;
    return dir;
  } catch {
    return undefined;
  }
}

function openCache(): Cache | undefined {
  const dir = cacheFolder(process.env);
  if (dir === undefined) return undefined;
  try {
    const st = fs.statSync(MAIN, { bigint: true });
    const name = `cli-${st.size}-${st.mtimeNs}-${st.ino}-${process.version}-${process.arch}.bin`;
    const file = path.join(dir, name);
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

/** Caches of other builds (an update, another install) unused this long are removed when a new one is written. */
const STALE_MS = 14 * 24 * 3600 * 1000;

/** Written once the command is done (process exit), atomically: concurrent commands each write a whole file. */
function saveOnExit(script: vm.Script, file: string): void {
  process.once('exit', () => {
    try {
      const tmp = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, script.createCachedData(), { mode: 0o600 });
      fs.renameSync(tmp, file);
      const dir = path.dirname(file);
      for (const name of fs.readdirSync(dir)) {
        const other = path.join(dir, name);
        if (other !== file && name.startsWith('cli-') && Date.now() - fs.statSync(other).atimeMs > STALE_MS) fs.rmSync(other, { force: true });
      }
    } catch {
      // A cache that cannot be written only costs the next command its compile.
    }
  });
}

function runMain(): void {
  const cache = openCache();
  // Same length as the file, so positions in stack traces stay right: the shebang becomes a comment.
  let source = fs.readFileSync(MAIN, 'utf8');
  if (source.startsWith('#!')) source = `//${source.slice(2)}`;
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: MAIN, cachedData: cache?.data });
  if (cache !== undefined && (cache.data === undefined || script.cachedDataRejected === true)) saveOnExit(script, cache.file);
  const requireFromMain = createRequire(MAIN);
  const mainModule = { exports: {}, filename: MAIN, id: '.', loaded: false, children: [], paths: [] as string[] };
  // The bundle runs the CLI only as the program's main module (`require.main === module`).
  requireFromMain.main = mainModule as unknown as NodeJS.Module;
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(mainModule.exports, mainModule.exports, requireFromMain, mainModule, MAIN, __dirname);
}

runMain();
