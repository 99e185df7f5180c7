/**
 * The agent's staging area. A file staged and then edited again exists in two
 * versions: the one on disk (the snapshot's tree) and the one in the index, which
 * no commit holds — a dangling blob once the worktree's index is gone, removed by
 * the next gc. The index is written as a tree of its own and committed on HEAD, so
 * the snapshot can keep it as a parent and `restore` can put the index back.
 *
 * A path in conflict has up to three stages, which no tree can hold at one path:
 * they are listed (restore writes them back, so the merge or rebase stopped there
 * can go on) and their blobs are kept by one more parent of that commit — a stage
 * need not come from any commit (`checkout -m`, `apply --3way`, `stash pop`).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { runGit } from './runGit';
import { writeTree } from './filteredPaths';
import { encodeName } from './pathBytes';
import type { ConflictStage } from './evidenceManifest';

export interface KeptIndex {
  /** The tree of the agent's index (what `git write-tree` gives there). */
  tree: string;
  /** A commit of that tree on the worktree's HEAD, so a ref can keep it. */
  commit: string;
  /** Paths whose conflict stages could not be written as a tree. */
  unmerged: number;
  /** Their stages, as `ls-files -u` lists them (empty when none). */
  stages: ConflictStage[];
}

/** `ls-files -u -z` lines ("<mode> <sha> <stage>\t<path>") as stages. */
function parseStages(listing: string): ConflictStage[] {
  const out: ConflictStage[] = [];
  for (const line of listing.split('\0')) {
    const tab = line.indexOf('\t');
    if (tab < 0) continue;
    const [mode, sha, stage] = line.slice(0, tab).split(' ');
    if (mode && sha && stage) out.push({ path: line.slice(tab + 1), stage: Number(stage), mode, sha });
  }
  return out;
}

/**
 * A commit whose tree holds every blob among `stages` (entries named by number: only the objects
 * matter), so a ref on it keeps them; null when there is none (a submodule's stage is a commit of
 * another repository).
 */
async function stagesKeeper(worktree: string, stages: readonly ConflictStage[], env: NodeJS.ProcessEnv): Promise<string | null> {
  const blobs = [...new Set(stages.filter((s) => s.mode !== '160000').map((s) => `${s.mode} blob ${s.sha}`))];
  if (blobs.length === 0) return null;
  const tree = (await runGit(['mktree'], { cwd: worktree, env, input: blobs.map((b, i) => `${b}\t${i}\n`).join('') })).stdout.trim();
  return (await runGit(['commit-tree', tree], { cwd: worktree, env, input: "paddock: the blobs of the agent's conflicted paths (their index stages)\n" })).stdout.trim();
}

/**
 * The agent's index as a commit, or null when it holds nothing HEAD does not (or there is no
 * readable index). Works on a copy: the agent's own index may be locked by a crashed git.
 */
export async function keepAgentIndex(opts: { worktree: string; realIndex: string; scratch: string; headSha: string | null; headTree: string | null; env: NodeJS.ProcessEnv; filtersOff: Promise<readonly string[]> }): Promise<KeptIndex | null> {
  const copy = path.join(opts.scratch, 'agent-index');
  try {
    await fs.copyFile(opts.realIndex, copy);
  } catch {
    return null; // no index: nothing was staged
  }
  const env = { ...opts.env, GIT_INDEX_FILE: copy };
  // A filter that cannot start must not pass for a conflict and drop the staged changes (filteredPaths.ts).
  // Each write of the copy runs its "racily clean" entries through their clean filters: none here (writeTree).
  const off = await opts.filtersOff;
  let written = await writeTree(opts.worktree, env, off);
  let unmerged = 0;
  let stages: ConflictStage[] = [];
  if (written.code !== 0) {
    // A path in conflict has stages git cannot write as a tree: they are kept aside (`stages`), and
    // the path takes HEAD's version in the tree.
    const listed = await runGit(['ls-files', '-u', '-z'], { cwd: opts.worktree, env, allowFailure: true, names: true });
    stages = parseStages(listed.stdout);
    const paths = [...new Set(stages.map((s) => s.path))];
    if (paths.length === 0) return null;
    unmerged = paths.length;
    // A path's HEAD entry (none when HEAD lacks it, or there is no HEAD yet) replaces its stages.
    await runGit([...off, 'update-index', '--force-remove', '-z', '--stdin'], { cwd: opts.worktree, env, input: encodeName(paths.map((p) => `${p}\0`).join('')), allowFailure: true });
    if (opts.headSha) {
      // HEAD's whole listing, filtered here: names that are not UTF-8 cannot all pass through argv.
      const wanted = new Set(paths);
      const head = await runGit(['ls-tree', '-r', '-z', '--full-tree', opts.headSha], { cwd: opts.worktree, env, allowFailure: true, names: true });
      const info = head.stdout.split('\0').filter((l) => wanted.has(l.slice(l.indexOf('\t') + 1)));
      if (info.length > 0) await runGit([...off, 'update-index', '-z', '--index-info'], { cwd: opts.worktree, env, input: encodeName(info.map((l) => `${l}\0`).join('')), allowFailure: true });
    }
    written = await writeTree(opts.worktree, env, off);
    if (written.code !== 0) return null;
  }
  const tree = written.stdout.trim();
  // With no HEAD commit yet (an orphan branch) the index is always kept: restore has nothing else to put back.
  if (opts.headSha && tree === opts.headTree && stages.length === 0) return null;
  const keeper = await stagesKeeper(opts.worktree, stages, opts.env);
  const parents = [...(opts.headSha ? [opts.headSha] : []), ...(keeper ? [keeper] : [])].flatMap((sha) => ['-p', sha]);
  const commit = (await runGit(['commit-tree', tree, ...parents], { cwd: opts.worktree, env: opts.env, input: "paddock: the agent's staged changes (its index)\n" })).stdout.trim();
  return { tree, commit, unmerged, stages };
}
