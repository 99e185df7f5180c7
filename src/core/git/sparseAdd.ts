/**
 * `git add --sparse`: from git 2.34 `add` refuses, for the whole run, a file written outside a sparse
 * checkout's patterns unless told `--sparse` (bug 157); before 2.34 it has no such option, and fails
 * on it as on any unknown one ("error: unknown option `sparse'", exit 129). Paddock supports git 2.30
 * and later, whose `add` never refused such a file: the flag is passed only to a git that takes it.
 */
import { runGit } from './runGit';

/** Per PATH (which git runs depends on it): whether that git's `add` takes `--sparse`. */
const known = new Map<string, Promise<boolean>>();

async function probe(cwd: string): Promise<boolean | null> {
  // Nothing specified: git parses its options, says "Nothing specified, nothing added." and writes nothing.
  const res = await runGit(['add', '--sparse', '--dry-run', '--pathspec-from-file=-'], { cwd, input: '', allowFailure: true });
  if (res.code === 0) return true;
  return /unknown option [`']?sparse/.test(res.stderr) ? false : null;
}

/**
 * `['--sparse']` when the git on PATH takes it, `[]` when it does not; asked once per PATH, in `cwd`
 * (a worktree: `add` needs a repository). A probe that fails another way is not kept, and the flag
 * is passed: the `add` itself then says why.
 */
export async function sparseAddFlag(cwd: string): Promise<string[]> {
  const key = process.env.PATH ?? '';
  let answer = known.get(key);
  if (!answer) {
    answer = probe(cwd).then((ok) => {
      if (ok === null) known.delete(key);
      return ok !== false;
    });
    known.set(key, answer);
  }
  return (await answer) ? ['--sparse'] : [];
}
