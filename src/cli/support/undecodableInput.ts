/**
 * Arguments and store-placing variables whose bytes are not UTF-8. Node reads argv and the
 * environment as UTF-8, each invalid byte becoming U+FFFD, so `PADDOCK_HOME=/tmp/h\xff` placed the
 * store in another folder, `/tmp/h\uFFFD` (one that `h\xfe` shares), and `restore --to r\xffo` made
 * `r\uFFFDo`; a title or an agent's argument lost its byte the same way. Bug 127 named a repository
 * folder misread so; this refuses, before anything runs, every input that would be misread. The raw
 * bytes are read from /proc (Linux): a U+FFFD that is the text's own character is left as it is, and
 * where /proc is not there nothing is refused.
 */
import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { printable } from '../../core/common/printable';
import { decodeName } from '../../core/git/pathBytes';
import { undecodableFolderSentence } from '../../core/git/undecodablePath';

/** The variables that place the store and the sockets (absolutePaths.ts), and HOME, under which the default store is. */
const PLACING_VARIABLES = ['PADDOCK_HOME', 'PADDOCK_RUNTIME_DIR', 'XDG_STATE_HOME', 'XDG_RUNTIME_DIR', 'HOME'] as const;

function nulSeparated(file: string): Buffer[] | undefined {
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch {
    return undefined;
  }
  const out: Buffer[] = [];
  let start = 0;
  for (let i = buf.indexOf(0); i >= 0; i = buf.indexOf(0, start)) {
    out.push(buf.subarray(start, i));
    start = i + 1;
  }
  if (start < buf.length) out.push(buf.subarray(start));
  return out;
}

/** `bytes`, read as Node read them, is `text`, and they are not UTF-8: `text` is a misreading. */
function misreads(bytes: Buffer, text: string): boolean {
  return !isUtf8(bytes) && bytes.toString('utf8') === text;
}

/**
 * One sentence saying which input is not UTF-8 (bad input), or undefined when none is. `argv`: the
 * command's words (process.argv from the verb on), which are the last words of /proc/self/cmdline.
 * Run before the environment is changed (relative paths made absolute).
 */
export function undecodableInput(argv: readonly string[], env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  // Almost every run: no U+FFFD anywhere, nothing read.
  const suspects = (v: string | undefined) => v !== undefined && v.includes('\uFFFD');
  if (!argv.some(suspects) && !PLACING_VARIABLES.some((name) => suspects(env[name]))) return undefined;
  const words = nulSeparated('/proc/self/cmdline');
  if (words !== undefined && words.length >= argv.length) {
    const raw = words.slice(words.length - argv.length);
    for (const [i, arg] of argv.entries()) {
      if (!suspects(arg) || !misreads(raw[i], arg)) continue;
      // A folder that is there, given by its path (`--repo "$R"`): named as bug 127 names it.
      const folder = undecodableFolderSentence(path.resolve(cwd, arg));
      if (folder !== undefined) return folder;
      return `The argument ${printable(decodeName(raw[i]))} is not valid UTF-8, which Paddock cannot carry (it would read as ${printable(arg)}); use one that is.`;
    }
  }
  const entries = nulSeparated('/proc/self/environ') ?? [];
  for (const name of PLACING_VARIABLES) {
    const value = env[name];
    if (!suspects(value)) continue;
    const prefix = Buffer.from(`${name}=`);
    const entry = entries.find((e) => e.subarray(0, prefix.length).equals(prefix));
    if (entry === undefined || !misreads(entry.subarray(prefix.length), value!)) continue;
    const bytes = entry.subarray(prefix.length);
    return `${name} is ${printable(decodeName(bytes))}, a path that is not valid UTF-8, which Paddock cannot carry (it would name ${printable(value!)} instead); use a folder whose path is.`;
  }
  return undefined;
}
