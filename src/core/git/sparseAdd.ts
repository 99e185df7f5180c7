/**
 * `git add --sparse`: from git 2.34 `add` refuses, for the whole run, a file written outside a sparse
 * checkout's patterns unless told `--sparse` (bug 157); before 2.34 it has no such option, and fails
 * on it as on any unknown one ("error: unknown option `sparse'", exit 129). The flag is passed only
 * to a git that lists it. (Whether a git before 2.34 ever refused such a file named by a pathspec
 * was not measured here: none is installed.)
 */
import { tmpdir } from 'node:os';
import { runGit } from './runGit';

/** Per PATH (which git runs depends on it): whether that git's `add` takes `--sparse`. */
const known = new Map<string, Promise<boolean>>();

async function probe(pathVar: string | undefined): Promise<boolean | null> {
  // `git add -h` prints its options (exit 129) before it looks for a repository: asked outside any,
  // it reads no index and takes no index.lock that a `git commit` in the person's worktree would
  // then find taken (runGit drops GIT_DIR and the like).
  // The git asked is the one on the PATH the answer is kept for: the spawn comes later (after a
  // slot, maybe queued), when another part of this process (another extension) may have changed PATH.
  // Passed also when unset (undefined): Node then leaves PATH out, as it was when asked.
  const res = await runGit(['add', '-h'], { cwd: tmpdir(), env: { PATH: pathVar }, input: '', allowFailure: true });
  const text = `${res.stdout}\n${res.stderr}`;
  if (res.code !== 129 || !/usage: git add/.test(text)) return null;
  return /(?:^|\s)--sparse\b/m.test(text);
}

/** The flag for an `add`, and the PATH it was answered for: the `add` runs with that PATH, so with the git asked. */
export interface SparseAdd {
  flag: string[];
  env: { PATH: string | undefined };
}

/**
 * `flag` is `['--sparse']` when the git on PATH takes it, `[]` when it does not; asked once per PATH.
 * A probe that fails another way is not kept, and the flag is passed: the `add` itself then says why.
 * Give the `add` `env` too: PATH may change before it is spawned (after a git slot, maybe queued).
 */
export async function sparseAdd(): Promise<SparseAdd> {
  const pathVar = process.env.PATH;
  const key = pathVar ?? '';
  let answer = known.get(key);
  if (!answer) {
    answer = probe(pathVar).then((ok) => {
      if (ok === null) known.delete(key);
      return ok !== false;
    });
    known.set(key, answer);
  }
  return { flag: (await answer) ? ['--sparse'] : [], env: { PATH: pathVar } };
}

/** `sparseAdd()`'s flag alone. */
export async function sparseAddFlag(): Promise<string[]> {
  return (await sparseAdd()).flag;
}
