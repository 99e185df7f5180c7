/** A file's content at a commit (the left side of a diff against an agent's base). */
import { runGit } from './runGit';

/** The text of `relativePath` at `ref` in `repo`; empty when the file did not exist there. */
export async function fileAtRef(repo: string, ref: string, relativePath: string): Promise<string> {
  // Only ever an object name: a `ref` beginning with `-` would be an option to git show (`--output=…` writes a file).
  const result = await runGit(['show', '--end-of-options', `${ref}:${relativePath}`], { cwd: repo, allowFailure: true });
  return result.code === 0 ? result.stdout : '';
}
