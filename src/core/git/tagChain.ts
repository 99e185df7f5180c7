/**
 * A tag object may point at another tag object (`git tag -a t2 t1`, t1 annotated): a chain whose
 * inner tags only the outer one names. git's `%(*objectname)` peels one level only, so what is kept
 * must follow the chain to its end: every tag object in it (refObjects.ts keeps their bytes) and the
 * object it finally names (a commit keptCommits.ts keeps, or a blob or tree refObjects.ts holds).
 */
import { runGit } from './runGit';
import { isCommitId } from './commitId';

export interface TagChain {
  /** The tag objects, outermost (`sha` itself) first. */
  tags: string[];
  /** What the innermost names; null when a tag in the chain cannot be read. */
  target: { sha: string; type: string } | null;
}

/** The chain from the tag object `sha` (run where its objects are: the worktree). */
export async function tagChain(cwd: string, sha: string): Promise<TagChain> {
  const tags: string[] = [];
  let at = sha;
  // No depth bound: an object's id is the hash of its bytes, so no chain can loop back, and one cut
  // short would drop its deepest tags and what they name without a word (a bound of 64 did).
  for (;;) {
    const res = await runGit(['cat-file', 'tag', at], { cwd, allowFailure: true, names: true });
    if (res.code !== 0) return { tags, target: null };
    tags.push(at);
    // A tag object's header: "object <sha>\ntype <type>\n…".
    const [, object, type] = /^object ([0-9a-f]+)\ntype ([a-z]+)\n/.exec(res.stdout) ?? [];
    if (!object || !isCommitId(object) || !type) return { tags, target: null };
    if (type !== 'tag') return { tags, target: { sha: object, type } };
    at = object;
  }
}
