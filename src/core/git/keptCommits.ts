/**
 * Commits that removing a worktree (or its branch) would leave unreachable:
 * those named only by the worktree's reflogs (HEAD's and its own refs'), the
 * branch's reflog, the worktree's own refs (refs/worktree, refs/bisect,
 * refs/rewritten), its pseudo-refs (ORIG_HEAD after a `reset --hard`,
 * MERGE_HEAD…) and the state files of a rebase or sequencer stopped there, and the HEADs and
 * reflogs of linked worktrees made inside it (innerWorktrees.ts). All of these
 * live in the worktree's private git dir or die with the branch; the snapshot
 * commit takes them as extra parents so its ref keeps them.
 *
 * Only the tips among them are needed (each keeps its ancestors), and however
 * many tips there are, every one is kept: past MAX_PARENTS they hang from
 * keeper commits (octopuses of octopuses) instead of being cut off.
 */
import * as path from 'node:path';
import { listEntries, readLatin1 } from './byteFs';
import { failure } from '../common/errors';
import { firstLine, GIT_BULK_TIMEOUT_MS, READ_ONLY_GIT, runGit } from './runGit';
import { isCommitId } from './commitId';
import { commonDirOf } from './headFiles';
import type { InnerWorktree } from './innerWorktrees';
import { tagChain } from './tagChain';

const PSEUDO_REFS = ['ORIG_HEAD', 'MERGE_HEAD', 'CHERRY_PICK_HEAD', 'REVERT_HEAD', 'REBASE_HEAD', 'BISECT_HEAD'];
/**
 * Files of a stopped merge, rebase, am or cherry-pick/revert series that name commits: the branch's
 * old tip, the commit stopped at, and the autostash (`--autostash`: the uncommitted changes the
 * operation put aside, in a stash commit no ref names until it ends).
 */
const OPERATION_STATE_REFS = [
  'MERGE_AUTOSTASH',
  'rebase-merge/autostash',
  'rebase-apply/autostash',
  'rebase-merge/orig-head',
  'rebase-merge/onto',
  'rebase-merge/amend',
  'rebase-merge/stopped-sha',
  // --update-refs: each other branch's tip when the rebase began and the commit it is to move to (updateRefs.ts).
  'rebase-merge/update-refs',
  'rebase-apply/orig-head',
  'rebase-apply/onto',
  'rebase-apply/original-commit',
  'sequencer/head',
  'sequencer/abort-safety',
];
const PER_WORKTREE_REFS = ['refs/worktree/', 'refs/bisect/', 'refs/rewritten/'];
/** More parents than this on one commit and it becomes unwieldy: more tips are grouped under keeper commits. */
export const MAX_PARENTS = 200;

/** Both sides of every reflog line ("<old> <new> <who> <when>\t<message>"); a missing log is empty. */
async function reflogCommits(file: string): Promise<string[]> {
  const text = await readLatin1(file);
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const [older, newer] = line.split(' ', 2);
    if (isCommitId(older ?? '') && !/^0+$/.test(older)) out.push(older);
    if (isCommitId(newer ?? '') && !/^0+$/.test(newer)) out.push(newer);
  }
  return out;
}

/** Every file under `dir`, recursively (a worktree git dir's `logs/` or `refs/`); none when it is missing. Names keep their bytes (byteFs.ts): under `worktrees/bad\xff` read as text, the reflogs read empty and a commit only they knew was not kept (bug 200). */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await listEntries(dir);
  const nested = await Promise.all(entries.map((e) => (e.isDirectory ? filesUnder(path.join(dir, e.name)) : Promise.resolve(e.isFile ? [path.join(dir, e.name)] : []))));
  return nested.flat();
}

/** What a worktree's git dir names in its reflogs (HEAD's and its own refs'), its pseudo-refs and a stopped operation's state files. */
async function gitDirCommits(gitDir: string): Promise<string[]> {
  const out: string[] = [];
  for (const file of await filesUnder(path.join(gitDir, 'logs'))) out.push(...(await reflogCommits(file)));
  for (const name of [...PSEUDO_REFS, ...OPERATION_STATE_REFS]) out.push(...(await pseudoRefCommits(path.join(gitDir, name))));
  return out;
}

/** The shas a pseudo-ref file names (MERGE_HEAD may name several). */
async function pseudoRefCommits(file: string): Promise<string[]> {
  const text = await readLatin1(file);
  // update-refs names the null id for a branch the rebase has not reached yet.
  return text.split('\n').map((l) => l.trim()).filter((l) => isCommitId(l) && !/^0+$/.test(l));
}

/**
 * What a linked worktree's own git dir knows of commits: its HEAD, its reflogs, its pseudo-refs and
 * operation state, and its own refs (refs/worktree, refs/bisect…: always loose files in its git dir).
 */
export async function innerWorktreeCommits(w: InnerWorktree): Promise<string[]> {
  const out = w.head ? [w.head] : [];
  out.push(...(await gitDirCommits(w.gitDir)));
  for (const file of await filesUnder(path.join(w.gitDir, 'refs'))) out.push(...(await pseudoRefCommits(file)));
  return out;
}

/**
 * A ref of the worktree's own (refs/worktree, refs/bisect, refs/rewritten), the object it names and
 * that object's type; for a tag object, what it peels to (refObjects.ts keeps what is no commit).
 */
export interface WorktreeRef {
  name: string;
  sha: string;
  type: string;
  peeled?: { sha: string; type: string };
}

/**
 * Commits known only to the worktree or the branch (`tips`): none of them is reachable
 * from `headSha` or from any other branch, tag or remote-tracking ref. The
 * reflogs and pseudo-refs are read as files (no git process per name). `ownRefs`:
 * the worktree's own refs, which restore puts back.
 */
export async function commitsOnlyInWorktree(
  worktree: string,
  gitDir: string,
  headSha: string | null,
  branch: string | null,
  inner: readonly InnerWorktree[] = [],
): Promise<{ tips: string[]; ownRefs: WorktreeRef[] }> {
  const ownRefs: WorktreeRef[] = [];
  const candidates = new Set<string>();
  // HEAD's reflog and those of the worktree's own refs (`update-ref --create-reflog refs/worktree/…`),
  // its pseudo-refs and a stopped operation's files: all of them live in its private git dir and go with it.
  for (const sha of await gitDirCommits(gitDir)) candidates.add(sha);
  // Linked worktrees inside this one: their HEAD and reflog are all that know the commits made there,
  // and `worktree prune` (or the removal, once they are kept here: innerForget.ts) drops them once the folder is gone.
  for (const w of inner) for (const sha of await innerWorktreeCommits(w)) candidates.add(sha);
  if (branch) for (const sha of await reflogCommits(path.join(await commonDirOf(gitDir), 'logs', 'refs', 'heads', ...branch.split('/')))) candidates.add(sha);
  const durable: string[] = headSha ? [headSha] : [];
  const tips = await runGit(['for-each-ref', '--format=%(refname)%00%(objectname)%00%(objecttype)%00%(*objectname)%00%(*objecttype)', 'refs/heads/', 'refs/tags/', 'refs/remotes/', ...PER_WORKTREE_REFS], {
    cwd: worktree,
    env: READ_ONLY_GIT,
  });
  for (const line of tips.stdout.split('\n')) {
    const [name, sha, type, onePeel, onePeelType] = line.split('\0');
    // A tag of a tag: what the chain ends at, not the inner tag (tagChain.ts).
    const end = onePeelType === 'tag' && isCommitId(sha ?? '') ? ((await tagChain(worktree, sha)).target ?? { sha: '', type: '' }) : { sha: onePeel, type: onePeelType };
    const [peeled, peeledType] = [end.sha, end.type];
    if (PER_WORKTREE_REFS.some((p) => name.startsWith(p)) && isCommitId(sha ?? '')) {
      ownRefs.push({ name, sha, type: type ?? '', ...(peeled && isCommitId(peeled) ? { peeled: { sha: peeled, type: peeledType ?? '' } } : {}) });
    }
    const commit = type === 'commit' ? sha : peeledType === 'commit' ? peeled : undefined;
    if (!commit || !isCommitId(commit)) continue;
    // The agent's own branch may be deleted by this cleanup, and the worktree's own refs (listed
    // here as git sees them from inside the worktree) go with the worktree: their tips are things to
    // keep, not keepers.
    if ((branch && name === `refs/heads/${branch}`) || PER_WORKTREE_REFS.some((p) => name.startsWith(p))) candidates.add(commit);
    else durable.push(commit);
  }
  if (headSha) candidates.delete(headSha);
  if (candidates.size === 0) return { tips: [], ownRefs };
  // rev-list prints exactly the commits reachable from the candidates and from none of the
  // durable tips, so a candidate it prints is one that only the worktree or the branch knows.
  // With --parents each line also names its parents: a printed commit that is a parent of another
  // printed one is kept through that child, and what is left are the tips.
  const input = [...candidates, ...durable.map((sha) => `^${sha}`)].join('\n') + '\n';
  const res = await runGit(['rev-list', '--parents', '--stdin', '--ignore-missing'], { cwd: worktree, env: READ_ONLY_GIT, input, allowFailure: true, timeoutMs: GIT_BULK_TIMEOUT_MS });
  if (res.code !== 0) throw failure(`Could not list the commits only ${worktree} knows: ${firstLine(res.stderr)}`);
  const unreachable = new Set<string>();
  const hasChild = new Set<string>();
  for (const line of res.stdout.split('\n')) {
    const [sha, ...parents] = line.split(' ');
    if (!isCommitId(sha ?? '')) continue;
    unreachable.add(sha);
    for (const p of parents) hasChild.add(p);
  }
  return { tips: [...candidates].filter((sha) => unreachable.has(sha) && !hasChild.has(sha)), ownRefs };
}

/**
 * The extra parents that keep `tips` reachable: the tips themselves when there are at most
 * MAX_PARENTS, else keeper commits (empty tree, up to MAX_PARENTS parents each), grouped again
 * until one level fits. `env` names the committer (the snapshot's identity).
 */
export async function keeperParents(worktree: string, tips: readonly string[], env: NodeJS.ProcessEnv): Promise<string[]> {
  let level = [...tips];
  if (level.length <= MAX_PARENTS) return level;
  const emptyTree = (await runGit(['mktree'], { cwd: worktree, env, input: '' })).stdout.trim();
  while (level.length > MAX_PARENTS) {
    const next: string[] = [];
    for (let at = 0; at < level.length; at += MAX_PARENTS) {
      const group = level.slice(at, at + MAX_PARENTS);
      const made = await runGit(['commit-tree', emptyTree, ...group.flatMap((sha) => ['-p', sha])], {
        cwd: worktree,
        env,
        input: `paddock: keeps ${group.length} commit(s) known only to the worktree\n`,
      });
      next.push(made.stdout.trim());
    }
    level = next;
  }
  return level;
}
