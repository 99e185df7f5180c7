/**
 * The worktree's own refs may name objects that are no commit: a blob or a
 * tree (`update-ref refs/worktree/x <blob>`), or an annotated tag object whose
 * tag ref is gone. A snapshot parent keeps commits only, and a tree cannot
 * hold a tag object: such objects would be gone at the next gc, and their refs
 * with them. One keeper commit (a snapshot parent) holds them in its tree — a
 * blob or tree as itself, a tag object as a blob of its bytes (`tagBlob`), from
 * which restore writes the same tag object again, and what a tag points at
 * when that is no commit (a commit is kept with the other tips). The tree a
 * stopped merge's AUTO_MERGE names goes there too.
 */
import type { Manifest } from './evidenceManifest';
import type { WorktreeRef } from './keptCommits';
import { isCommitId } from './commitId';
import { encodeName } from './pathBytes';
import { firstLine, runGit } from './runGit';
import { tagChain } from './tagChain';

type RecordedRef = NonNullable<NonNullable<Manifest['worktreeRefs']>[number]>;

const TREE_MODES: Readonly<Record<string, string>> = { blob: '100644', tree: '040000' };

/**
 * The tree AUTO_MERGE names (a merge stopped on a conflict: its result with the conflict markers,
 * for `git diff AUTO_MERGE`), which restore puts back with the operation's files and nothing else
 * keeps; none when the file is absent or names no tree.
 */
export async function autoMergeTree(worktree: string, files: Manifest['gitDirFiles']): Promise<string | null> {
  const file = files?.find((f) => f.path === 'AUTO_MERGE');
  const sha = file ? Buffer.from(file.base64, 'base64').toString('latin1').trim() : '';
  if (!isCommitId(sha)) return null;
  const type = await runGit(['cat-file', '-t', sha], { cwd: worktree, allowFailure: true });
  return type.code === 0 && type.stdout.trim() === 'tree' ? sha : null;
}

/** The refs as the inventory records them, and the keeper commit (null when every ref names a commit and there is no `tree`). */
export async function keepRefObjects(worktree: string, refs: readonly WorktreeRef[], env: NodeJS.ProcessEnv, tree: string | null = null): Promise<{ refs: RecordedRef[]; keeper: string | null }> {
  const entries: string[] = [];
  const hold = (type: string, sha: string) => {
    if (TREE_MODES[type]) entries.push(`${TREE_MODES[type]} ${type} ${sha}\t${entries.length}\n`);
  };
  if (tree) hold('tree', tree);
  const recorded: RecordedRef[] = [];
  for (const ref of refs) {
    if (ref.type === 'tag') {
      // Every tag of a chain (a tag of a tag): the inner ones only the outer one names (tagChain.ts).
      const kept: { sha: string; tagBlob: string }[] = [];
      for (const sha of (await tagChain(worktree, ref.sha)).tags) {
        const bytes = await runGit(['cat-file', 'tag', sha], { cwd: worktree, env, names: true });
        const tagBlob = (await runGit(['hash-object', '-w', '--stdin'], { cwd: worktree, env, input: encodeName(bytes.stdout) })).stdout.trim();
        hold('blob', tagBlob);
        kept.push({ sha, tagBlob });
      }
      if (ref.peeled) hold(ref.peeled.type, ref.peeled.sha);
      const [outer, ...inner] = kept;
      recorded.push({ name: ref.name, sha: ref.sha, ...(outer ? { tagBlob: outer.tagBlob } : {}), ...(inner.length > 0 ? { innerTags: inner } : {}) });
      continue;
    }
    hold(ref.type, ref.sha);
    recorded.push({ name: ref.name, sha: ref.sha });
  }
  if (entries.length === 0) return { refs: recorded, keeper: null };
  const held = (await runGit(['mktree'], { cwd: worktree, env, input: entries.join('') })).stdout.trim();
  const keeper = (await runGit(['commit-tree', held], { cwd: worktree, env, input: "paddock: the objects the worktree's own refs (and AUTO_MERGE) name that are no commit\n" })).stdout.trim();
  return { refs: recorded, keeper };
}

/** At restore: a tag object gc took written again from its kept bytes (the same object, so the same id), the inner ones of a chain first; a sentence when one cannot be. */
export async function restoreTagObject(target: string, ref: RecordedRef): Promise<string | null> {
  if (!ref.tagBlob) return null;
  for (const tag of [...(ref.innerTags ?? [])].reverse().concat([{ sha: ref.sha, tagBlob: ref.tagBlob }])) {
    if ((await runGit(['cat-file', '-e', tag.sha], { cwd: target, allowFailure: true })).code === 0) continue;
    const bytes = await runGit(['cat-file', 'blob', tag.tagBlob], { cwd: target, allowFailure: true, names: true });
    const written = bytes.code === 0 ? await runGit(['hash-object', '-t', 'tag', '-w', '--stdin'], { cwd: target, allowFailure: true, input: encodeName(bytes.stdout) }) : bytes;
    if (written.code !== 0 || written.stdout.trim() !== tag.sha) return `${tag.sha === ref.sha ? 'its tag object' : `the tag object ${tag.sha.slice(0, 12)} it names`} could not be written again (${firstLine(written.stderr) || 'other bytes'})`;
  }
  return null;
}
