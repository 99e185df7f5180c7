/**
 * The list of merged commits git merge writes under its merge commit's message when `merge.log`
 * or `--log` asks for it (fmt-merge-msg's shortlog), for Paddock's merge commits to carry it too:
 * `* <branch>:` (with `(N commits)` when there are more than it lists), the subjects of the
 * newest `limit` commits the target lacks (a commit without one by its name), merges left out, and
 * `...` for the rest.
 */
import { runGit } from './runGit';

export async function withMergeLog(repo: string, message: string, from: string, source: string, sourceName: string, limit: number | null): Promise<string> {
  if (limit === null) return message;
  const res = await runGit(['log', '--no-merges', '-z', '--format=%H %s', '--end-of-options', `${from}..${source}`], { cwd: repo });
  const entries = res.stdout.split('\0');
  if (entries[entries.length - 1] === '') entries.pop();
  // A commit with no subject is listed by its name, as git lists it.
  const subjects = entries.map((e) => e.slice(e.indexOf(' ') + 1) || e.slice(0, e.indexOf(' ')));
  if (subjects.length === 0) return message;
  const more = subjects.length > limit;
  const lines = [`* ${sourceName}:${more ? ` (${subjects.length} commits)` : ''}`, ...subjects.slice(0, limit).map((s) => `  ${s}`), ...(more ? ['  ...'] : [])];
  // As git merge writes it: the message's last line completed, a blank line, the list with no newline after its last line
  // (which git's cleanup adds, and `verbatim` leaves out).
  return `${message.endsWith('\n') ? message : `${message}\n`}\n${lines.join('\n')}`;
}
