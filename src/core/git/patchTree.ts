/**
 * What the evidence patch covers. git cannot write a binary patch of a blob of
 * 2 GiB or more ("Out of memory, malloc failed": its size overflows), and below
 * that it still holds the blob and its deflated, base85 copy in memory at once.
 * Files over PATCH_BLOB_LIMIT are kept in the snapshot commit like any other (git
 * streams them in), and left out of the patch: the patch goes from the base to
 * the snapshot's tree with those paths as the base has them, is verified against
 * exactly that tree, and the manifest names what it leaves out.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { ALL_SUBMODULES, runGit } from './runGit';
import { encodeName } from './pathBytes';

/** Files larger than this are in the snapshot commit but not in the patch (bytes; 256 MiB). */
export const PATCH_BLOB_LIMIT = 256 * 1024 * 1024;

export interface PatchTree {
  /** The tree the patch is made against: the snapshot's, or it with the large files as in the base. */
  tree: string;
  /** Paths whose snapshot content is not in the patch (only those that differ from the base). */
  omitted: string[];
}

export async function treeForPatch(opts: { worktree: string; baseSha: string; tree: string; tempIndex: string; scratch: string; env: NodeJS.ProcessEnv; large: readonly string[] }): Promise<PatchTree> {
  if (opts.large.length === 0) return { tree: opts.tree, omitted: [] };
  const index = path.join(opts.scratch, 'patch-index');
  await fs.copyFile(opts.tempIndex, index);
  const env = { ...opts.env, GIT_INDEX_FILE: index };
  const run = (args: string[], input?: string, names = false) => runGit(args, { cwd: opts.worktree, env, input: input === undefined ? undefined : encodeName(input), names });
  const large = new Set(opts.large);
  // The base's whole listing, filtered here (names that are not UTF-8 cannot all pass through argv).
  const base = (await run(['ls-tree', '-r', '-z', '--full-tree', opts.baseSha], undefined, true)).stdout.split('\0').filter((l) => large.has(l.slice(l.indexOf('\t') + 1)));
  await run(['update-index', '--force-remove', '-z', '--stdin'], opts.large.map((p) => `${p}\0`).join(''));
  if (base.length > 0) await run(['update-index', '-z', '--index-info'], base.map((l) => `${l}\0`).join(''));
  const tree = (await run(['write-tree'])).stdout.trim();
  const differ = await run(['diff-tree', '-r', '-z', '--name-only', '--no-renames', ALL_SUBMODULES, tree, opts.tree], undefined, true);
  return { tree, omitted: differ.stdout.split('\0').filter((p) => p.length > 0) };
}
