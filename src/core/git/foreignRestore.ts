/**
 * At restore: each worktree of another repository (foreignWorktrees.ts) came back from the archive
 * with its `.git` file, which names its registration in that repository. Restore writes nothing
 * there: it says whether that registration still leads back to the folder, whether the person
 * may safely link it here by writing its two linking files (linkByHand.ts, never `worktree repair`;
 * only when the registration is still this folder's: it names the place the folder was captured
 * at, now empty, and its HEAD is the recorded one — after a `worktree prune` there, a new worktree
 * of the same name owns it, and linking would take it over), and where
 * the commits only it knew are: the bundle in the evidence folder (foreignBundle.ts).
 */
import * as path from 'node:path';
import { realPathOr, pathExists } from '../common/paths';
import { printable } from '../common/printable';
import { clipText } from '../common/clipText';
import { inlineCommand, shellQuote } from '../common/shellQuote';
import { BUNDLE_REF_PREFIX } from './foreignBundle';
import { foreignNeedsWords } from './foreignWorktrees';
import type { Manifest } from './evidenceManifest';
import { headOf } from './innerWorktrees';
import { privateGitDir } from './gitDirsToKeep';
import { linkByHandWords } from './linkByHand';
import { readGitFileText } from './gitFileText';

type ForeignRecords = Manifest['foreign'];

/** Where `fetch` puts a bundle's tips in the other repository: branches the person sees, one folder per capture's bundle. */
export const RESTORED_BRANCHES = 'paddock-restored';

const same = async (a: string, b: string) => (await realPathOr(a, a)) === (await realPathOr(b, b));

/** `target` the restored worktree, `origin` where it was captured (the inventory's `worktree`). */
export async function foreignWorktreeNotes(target: string, origin: string, evidenceDir: string, records: ForeignRecords): Promise<string[]> {
  const notes: string[] = [];
  for (const r of records ?? []) {
    const dir = path.join(target, r.path);
    const name = clipText(printable(r.path), 1000);
    const repo = clipText(printable(r.repo), 1000);
    const commits = keptWhere(r, evidenceDir);
    let gitDir: string;
    try {
      gitDir = privateGitDir(dir);
    } catch {
      if (commits) notes.push(`${name} was a worktree of ${repo}; its files are not back; ${commits}`);
      continue;
    }
    const back = (await readGitFileText(path.join(gitDir, 'gitdir')).catch(() => null))?.replace(/\r?\n$/, '') ?? null;
    const names = back ? path.resolve(gitDir, back) : null;
    if (names && (await same(names, path.join(dir, '.git')))) continue;
    const at = r.head ? ` at ${r.head.slice(0, 12)}` : '';
    const originDotGit = path.join(origin, r.path, '.git');
    const stillOurs = names !== null && !(await pathExists(originDotGit)) && (await same(names, originDotGit)) && (await headOf(gitDir, r.repo)).head === r.head;
    if (stillOurs) {
      notes.push(`${name} is a worktree of ${repo}${at} registered at its old place: ${linkByHandWords(dir, gitDir)}${commits ? `; ${commits}` : ''}`);
      continue;
    }
    notes.push(
      `${name} was a worktree of ${repo}${at}, which no longer registers it (${names ? 'that registration is another folder\'s now: do not run git in it before removing its .git file' : 'the registration is gone'}): its files are back, not linked${commits ? `; ${commits}` : ''}`,
    );
  }
  return notes;
}

/**
 * Where its commits are and how to take them back, as branches (a fetch of bare ids fills only
 * FETCH_HEAD, whose commits the next gc drops): one command, every tip; null when there were none.
 */
function keptWhere(r: NonNullable<ForeignRecords>[number], evidenceDir: string): string | null {
  if (r.notCopied) return `its ${r.notCopied} commit line(s) were not kept (the cleanup was agreed without them)`;
  if (!r.bundle) return null;
  const file = path.join(evidenceDir, r.bundle);
  const spec = `${BUNDLE_REF_PREFIX}*:refs/heads/${RESTORED_BRANCHES}/${path.basename(r.bundle, '.bundle')}/*`;
  const fetch = inlineCommand(['git', '-C', shellQuote(r.repo), 'fetch', shellQuote(file), shellQuote(spec)], 8000);
  const how = fetch ? `${fetch} brings them back as branches ${RESTORED_BRANCHES}/…` : `\`git fetch <that bundle> '${spec}'\` run in that repository brings them back as branches`;
  return `its ${r.count ?? r.commits.length} commit(s) are in ${clipText(printable(file), 1000)}${foreignNeedsWords(r)}; ${how}`;
}
