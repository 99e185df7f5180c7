/**
 * The whole state of a worktree as one commit — its commits plus every
 * uncommitted change, untracked files included — made through a temporary
 * index (the worktree's own index and files are not touched), as `git add -A`
 * would record it. Its parent is HEAD, so a three-way merge against it finds the right merge base.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { failure } from '../common/errors';
import { printable } from '../common/printable';
import { headCommit } from './checkout';
import { commitTree, treeOf } from './mergeTree';
import { NO_HOOKS_ENV, runGit } from './runGit';
import { removeScratch, type ScratchLog } from './scratch';
import { stageEverything } from './snapshotIndex';

export async function worktreeStateCommit(worktree: string, message: string, log?: ScratchLog): Promise<string> {
  const head = await headCommit(worktree);
  const realIndex = path.resolve(worktree, (await runGit(['rev-parse', '--git-path', 'index'], { cwd: worktree })).stdout.trim());
  const scratch = await fs.mkdtemp(path.join(tmpdir(), 'paddock-state-'));
  try {
    const tempIndex = path.join(scratch, 'index');
    // GIT_WORK_TREE: over the agent's own core.worktree / core.bare (config.worktree), which sent git elsewhere or nowhere.
    const env = { GIT_INDEX_FILE: tempIndex, GIT_OPTIONAL_LOCKS: '0', GIT_WORK_TREE: worktree, ...NO_HOOKS_ENV };
    // A path git would not add cannot be part of a commit: the state would silently lack it.
    // As `git add -A` would record it (modes under the repository's core.fileMode and core.symlinks): the state is landed, or committed, as the agent's commit.
    // A state to commit or land: a clean filter slow but working is let run to the bound (addStallMs 0), as the commit's own `add -A` is.
    const refused = await stageEverything({ worktree, realIndex, tempIndex, env, nestedRepos: [], asGitAdds: true, addStallMs: 0 });
    if (refused.length > 0) throw failure(`Could not read the worktree ${worktree} as git would commit it: git will not add ${printable(refused[0])}${refused.length > 1 ? ` and ${refused.length - 1} more` : ''}.`);
    const tree = (await runGit(['write-tree'], { cwd: worktree, env })).stdout.trim();
    if (tree === (await treeOf(worktree, head))) return head;
    return await commitTree(worktree, tree, [head], message);
  } finally {
    await removeScratch(scratch, { log }); // never in place of the error thrown (bug 188)
  }
}
