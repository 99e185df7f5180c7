/**
 * A snapshot's objects are written loose (`add`, `write-tree`, `commit-tree`) before its ref, and
 * until the ref is there nothing reaches them. A `git prune --expire=now` (alone, or the one a `git gc`
 * with gc.pruneExpire=now runs) that read the refs before the ref was written deletes them after it,
 * at any time until it ends: measured, a capture returned a snapshot commit that was already gone, the
 * worktree then removable on its strength. prune's expiry cannot keep them (`now` is every unreachable
 * object, whatever its date), no lock keeps a bare `git prune` out, and a check after the ref is
 * written is passed before the prune deletes.
 *
 * So once the ref is written the snapshot's objects beyond HEAD's history are copied into a pack of their own
 * (`pack-objects`, which fails when one cannot be read: then the ref goes back, the capture fails and
 * nothing is removed). prune deletes loose objects only, never a pack; a repack deletes only packs it
 * listed when it started, and one that lists this pack started after the ref was written, so it sees
 * the snapshot reachable and keeps its objects. No `.keep` file is needed: the pack is an ordinary one,
 * which stays until the next gc (or repack) merges it, also after Paddock deletes the ref.
 */
import * as path from 'node:path';
import { failure } from '../common/errors';
import { firstLine, GIT_BULK_TIMEOUT_MS, NO_HOOKS, runGit } from './runGit';

/** The ref back to what it named before (its reflog's previous entry), or gone when it is new; only while it still names `sha`. */
async function undoRef(repo: string, ref: string, sha: string): Promise<void> {
  const before = await runGit(['rev-parse', '-q', '--verify', `${ref}@{1}`], { cwd: repo, allowFailure: true });
  const old = before.stdout.trim();
  await runGit(['update-ref', ...(before.code === 0 && old ? [ref, old, sha] : ['-d', ref, sha])], { cwd: repo, config: NO_HOOKS, allowFailure: true });
}

export interface SnapshotRefOptions {
  repo: string;
  /** The repository's common git dir (its objects are there). */
  commonDir: string;
  ref: string;
  sha: string;
  /**
   * Commits whose history is reachable without the snapshot by every prune, whichever checkout it
   * runs in: not copied, and not read. Only the worktree's HEAD (git's prune walks every worktree's
   * HEAD). Not the commits the worktree's own refs name: a prune run in the person's checkout does not
   * walk another worktree's refs/worktree/*, refs/bisect/*, refs/rewritten/* (checked on git 2.39), so
   * those are copied (a partial clone's blobs never fetched among them are let be: allow-promisor).
   */
  before: readonly string[];
}

/** Writes `ref` at the snapshot `sha` and copies its objects beyond HEAD's history into a pack no prune deletes; fails (nothing removed) when one is gone. */
export async function writeSnapshotRef(opts: SnapshotRefOptions): Promise<void> {
  const { repo, ref, sha } = opts;
  // --create-reflog keeps earlier snapshots of the same job (a retried cleanup) reachable for a while; no hooks (NO_HOOKS).
  await runGit(['update-ref', '--create-reflog', '-m', 'paddock snapshot', ref, sha], { cwd: repo, config: NO_HOOKS });
  // The ref first: a repack that sees the pack must also see the ref (see above). --window=0: no delta
  // search (the next gc makes deltas; measured, it took half the step's time with three 1 MB files).
  // --missing=allow-promisor: what a partial clone can fetch again is no loss (only a promisor pack names it).
  // git fsyncs the pack and its index (core.fsync's default; measured), which it does not do for loose objects.
  const revs = [sha, ...opts.before.map((b) => `^${b}`)].join('\n') + '\n';
  const packed = await runGit(['pack-objects', '--revs', '-q', '--window=0', '--missing=allow-promisor', path.join(opts.commonDir, 'objects', 'pack', 'pack')], {
    cwd: repo,
    input: revs,
    allowFailure: true,
    timeoutMs: GIT_BULK_TIMEOUT_MS,
  }).catch((err: unknown) => ({ code: -1, stdout: '', stderr: err instanceof Error ? err.message : String(err) }));
  if (packed.code === 0) return;
  await undoRef(repo, ref, sha);
  throw failure(
    `objects of the snapshot could not be kept in ${repo} (${firstLine(packed.stderr) || `exit code ${packed.code}`}): a git gc or prune running at the same time may have deleted them; nothing was removed, and the next attempt captures again`,
  );
}
