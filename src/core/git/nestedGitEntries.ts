/**
 * The folders below a worktree that hold a `.git` (a folder or a file): its nested repositories and
 * the checkouts linked to one, found from the folders' listings alone (no stat of every file, as
 * the capture's inventory walk needs). Two callers want nothing else: restore elsewhere, which must
 * link each again (the manifest's list is cut at 200, and one past it kept naming the old place),
 * and the confirmation before a cleanup, which names the linked worktrees outside the agent's.
 * Never into a `.git` folder, never through a symbolic link; folders of one depth are read a few at
 * a time, each listing awaited, so the event loop stays free; `signal` stops it between listings.
 * Names keep their bytes (byteFs.ts): a folder named `bad\xff` was passed over (bug 199).
 */
import * as path from 'node:path';
import { listEntries } from './byteFs';
import type { NestedRepo } from './inventory';

/** What was found, and whether the walk stopped at `limit` (more may be there). */
export interface NestedFind {
  nested: NestedRepo[];
  cut: boolean;
}

/** How many nested `.git` entries a walk gathers before it stops (each is a few files' work for its caller). */
export const NESTED_FIND_LIMIT = 10_000;
/** How many folders are listed at once. */
const FOLDER_BATCH = 32;

/** Every folder below `root` (not `root` itself) holding a `.git`, parents first, names sorted; throws `signal`'s reason when aborted. */
export async function findNestedGitEntries(root: string, opts: { limit?: number; signal?: AbortSignal } = {}): Promise<NestedFind> {
  const limit = opts.limit ?? NESTED_FIND_LIMIT;
  const nested: NestedRepo[] = [];
  let level = [''];
  while (level.length > 0) {
    const next: string[] = [];
    for (let at = 0; at < level.length; at += FOLDER_BATCH) {
      opts.signal?.throwIfAborted();
      const batch = level.slice(at, at + FOLDER_BATCH);
      const lists = await Promise.all(batch.map((rel) => listEntries(rel === '' ? root : path.join(root, rel))));
      for (const [k, rel] of batch.entries()) {
        const entries = lists[k]!.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        // A FIFO, socket or device named `.git` is no repository: never read, never named (bug 224).
        const dotGit = entries.find((e) => e.name === '.git' && (e.isDirectory || e.isFile || e.isSymbolicLink));
        if (rel !== '' && dotGit) {
          if (nested.length >= limit) return { nested, cut: true };
          nested.push({ path: rel, gitFile: !dotGit.isDirectory });
        }
        for (const e of entries) if (e.isDirectory && e.name !== '.git') next.push(rel === '' ? e.name : `${rel}/${e.name}`);
      }
    }
    level = next;
  }
  return { nested, cut: false };
}
