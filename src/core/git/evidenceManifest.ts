/**
 * `evidence/inventory.json`: what a capture found in the worktree and where
 * each part of it went, so that a later attempt can tell whether anything
 * changed since, a report can say what was kept and dropped, and `restore`
 * can put every part back. Read back through zod like every store file.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as z from '../common/zod';
import { failure } from '../common/errors';

const Tally = z.object({ files: z.number().check(z.int(), z.nonnegative()), bytes: z.number().check(z.nonnegative()) });

export const LostEntrySchema = z.object({
  path: z.string().check(z.maxLength(4096)),
  bytes: z.number().check(z.nonnegative()),
  why: z.enum(['too-big', 'unreadable']),
});
export type LostEntry = z.infer<typeof LostEntrySchema>;

/** The part of the manifest that the job record carries (and `show --json` prints). */
export const EvidenceSummarySchema = z.object({
  captured: Tally,
  archived: Tally,
  emptyDirs: z.number().check(z.int(), z.nonnegative()),
  regenerable: z.extend(Tally, { roots: z.array(z.string().check(z.maxLength(4096))).check(z.maxLength(50)) }),
  /** Dropped with the person's consent ("Clean Up Anyway"); empty otherwise. */
  lost: z.array(LostEntrySchema).check(z.maxLength(200)),
  lostCount: z.number().check(z.int(), z.nonnegative()),
  /** Nested repositories and submodules, archived whole with their history. */
  nested: z.array(z.string().check(z.maxLength(4096))).check(z.maxLength(200)),
  /**
   * Repositories archived from the worktree's private git dir that no checkout pointed at (a
   * submodule's after `git submodule deinit` or `git rm`), by their place there (`modules/vendor/lib`).
   * Absent: none.
   */
  keptGitDirs: z.optional(z.array(z.string().check(z.maxLength(4096))).check(z.maxLength(200))),
  /** Commits only the worktree's reflogs or own refs knew, kept as extra parents of the snapshot. */
  keptCommits: z.number().check(z.int(), z.nonnegative()),
  /** Worktrees of another repository inside this one, in words: where their commits were kept (foreignWorktrees.ts); then a nested repository's linked worktrees outside it (outsideWorktrees.ts); each shortened to the bound. Absent: none. */
  foreignWorktrees: z.optional(z.array(z.string().check(z.maxLength(8192))).check(z.maxLength(200))),
  /** Of `archived`, the files git would not store (a filter or encoding that failed on them, a name it refuses), kept as they are on disk. Absent: none. */
  unstorable: z.optional(z.number().check(z.int(), z.nonnegative())),
});
export type EvidenceSummary = z.infer<typeof EvidenceSummarySchema>;

export const ManifestEntrySchema = z.object({
  path: z.string(),
  type: z.enum(['file', 'symlink', 'dir', 'socket', 'other']),
  size: z.number().check(z.nonnegative()),
  mode: z.number().check(z.int(), z.nonnegative()),
  mtimeMs: z.number(),
  /** Recorded since the check before removal compares them too (older inventories lack them). */
  ino: z.optional(z.number()),
  ctimeMs: z.optional(z.number()),
  /** A file's device (older inventories lack it): hard links are one inode on one device. */
  dev: z.optional(z.number()),
});

/** Index state no tree holds (indexFlagState.ts), by path; each list absent when empty. */
export const IndexFlagRecordSchema = z.object({
  /** Entries added with `git add -N` (no content staged yet). */
  intentToAdd: z.optional(z.array(z.string())),
  assumeUnchanged: z.optional(z.array(z.string())),
  skipWorktree: z.optional(z.array(z.string())),
  /** The skip-worktree entries with nothing on disk (left out by a sparse checkout): restore leaves them out too. */
  notCheckedOut: z.optional(z.array(z.string())),
});
export type IndexFlagRecord = z.infer<typeof IndexFlagRecordSchema>;

/** The files of a worktree's private git dir that shape its checkout (gitDirFiles.ts). */
export const KEPT_GIT_DIR_FILES = ['config.worktree', 'info/sparse-checkout'] as const;

/**
 * The files of a worktree's private git dir that say a merge, rebase, am, cherry-pick, revert or
 * bisect stopped half-way there, and carry what it needs to go on (its message, its todo list, the
 * commits it is about): single files at the top, and whole folders.
 */
export const OPERATION_STATE_FILES = [
  'MERGE_HEAD',
  'MERGE_MSG',
  'MERGE_MODE',
  'MERGE_AUTOSTASH',
  'MERGE_RR',
  'AUTO_MERGE',
  'ORIG_HEAD',
  'CHERRY_PICK_HEAD',
  'REVERT_HEAD',
  'REBASE_HEAD',
  'SQUASH_MSG',
] as const;
export const OPERATION_STATE_FOLDERS = ['rebase-merge', 'rebase-apply', 'sequencer'] as const;

/** Whether `rel` (a path inside a worktree's private git dir, `/`-separated) is one restore puts back: never one that leaves it. */
export function isKeptGitDirFile(rel: string): boolean {
  const parts = rel.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..' || p.includes('\\'))) return false;
  if ((KEPT_GIT_DIR_FILES as readonly string[]).includes(rel)) return true;
  if (parts.length === 1) return (OPERATION_STATE_FILES as readonly string[]).includes(rel) || /^BISECT_[A-Z_]+$/.test(rel);
  return (OPERATION_STATE_FOLDERS as readonly string[]).includes(parts[0]!);
}

/** A bound for reading the inventory back, far past any real count: past it the capture stops (the inventory would not read back), nothing removed. */
const OUTSIDE_RECORDED_MAX = 100_000;

const ObjectId = z.string().check(z.regex(/^[0-9a-f]{40,64}$/));

/**
 * A ref of the worktree's own as git names it. git judges the name (`update-ref` refuses one it
 * would not make); this refuses only what is unsafe where the name goes — outside those prefixes,
 * or an ASCII control character or space, which git never allows either (a newline would split
 * `update-ref --stdin`'s input) — and nothing git accepts, such as a no-break space.
 */
export const WorktreeRefSchema = z.object({
  // eslint-disable-next-line no-control-regex -- the controls git refuses in a ref name are what this refuses
  name: z.string().check(z.regex(/^refs\/(worktree|bisect|rewritten)\/[^\x00-\x20\x7f]+$/)),
  /** The object it names: a commit, or a blob, tree or tag object (refObjects.ts). */
  sha: ObjectId,
  /** For a tag object: a blob of its bytes, which the snapshot keeps and restore writes back as the tag when gc took it. */
  tagBlob: z.optional(ObjectId),
  /** A tag of a tag (tagChain.ts): the inner tag objects, outer to inner, each with a blob of its bytes as `tagBlob`. Absent: none. */
  innerTags: z.optional(z.array(z.object({ sha: ObjectId, tagBlob: ObjectId }))),
});

/** One stage of a path in conflict, as `ls-files -u` lists it (agentIndex.ts keeps it, conflictStages.ts writes it back). */
export const ConflictStageSchema = z.object({ path: z.string(), stage: z.number().check(z.int(), z.gte(1), z.lte(3)), mode: z.string().check(z.regex(/^[0-7]{6}$/)), sha: ObjectId });
export type ConflictStage = z.infer<typeof ConflictStageSchema>;

export const ManifestSchema = z.object({
  version: z.literal(1),
  worktree: z.string(),
  capturedAt: z.string(),
  snapshotSha: z.string().check(z.regex(/^[0-9a-f]{40,64}$/)),
  /** Null when HEAD was a branch with no commit yet (`unbornBranch`). */
  headSha: z.nullable(z.string().check(z.regex(/^[0-9a-f]{40,64}$/))),
  branch: z.nullable(z.string()),
  /**
   * The branch HEAD named (`refs/heads/…`; the agent may have switched away from its own), null when
   * it was detached. Absent: evidence from before it was recorded (restore then uses the job's branch).
   */
  headRef: z.optional(z.nullable(z.string())),
  /** The branch HEAD named when it had no commit yet (`checkout --orphan`). Absent: HEAD had a commit. */
  unbornBranch: z.optional(z.string()),
  /** The worktree folder's own permission bits (`entries` are what is in it). Absent: evidence from before they were recorded. */
  rootMode: z.optional(z.number().check(z.int(), z.nonnegative(), z.lte(0o7777))),
  /** The agent's index when it differed from HEAD: its tree, and the commit (a snapshot parent) that keeps it. Absent: the index was HEAD. */
  index: z.optional(
    z.object({
      tree: ObjectId,
      commit: ObjectId,
      unmerged: z.number().check(z.int(), z.nonnegative()),
      /**
       * The conflict stages (1 base, 2 ours, 3 theirs) of those paths, as `ls-files -u` lists them; the
       * commit keeps their blobs. Absent: none, or evidence from before they were kept (restore then leaves HEAD's entry).
       */
      stages: z.optional(z.array(ConflictStageSchema)),
    }),
  ),
  /** Files the snapshot holds but the patch leaves out (too large for a binary patch; patchTree.ts). Absent: none. */
  patchOmits: z.optional(z.array(z.string())),
  /**
   * Linked worktrees of another repository inside this one (foreignWorktrees.ts): where, that
   * repository's git dir, their HEAD, the tips of the commits only they knew, and the bundle in the
   * evidence folder holding those commits (foreignBundle.ts). Absent: none.
   */
  foreign: z.optional(
    z.array(
      z.object({
        path: z.string(),
        repo: z.string(),
        head: z.nullable(ObjectId),
        branch: z.nullable(z.string()),
        commits: z.array(ObjectId),
        // `<n>.bundle` before each capture's names were its own (`<ms>-<hex>-<n>.bundle`).
        bundle: z.optional(z.string().check(z.regex(/^foreign\/(?:[0-9]+-[0-9a-f]+-)?[0-9]+\.bundle$/))),
        count: z.optional(z.number().check(z.int(), z.nonnegative())),
        needs: z.optional(z.array(ObjectId)),
        notCopied: z.optional(z.number().check(z.int(), z.nonnegative())),
      }),
    ),
  ),
  /**
   * A nested repository's linked worktrees outside the agent's whose `.git` named that repository
   * (outsideWorktrees.ts): the repository (relative), the registration's id, the folder, the git
   * dir its `.git` named, and the repository's git dir (relative) when not `<repo>/.git`. Restore links only these again, and only while that is what it names. Absent: none.
   * Every one the capture found (a list cut at 200 left the rest unlinked at restore, saying nothing).
   */
  outside: z.optional(
    z.array(
      z.object({
        repo: z.string().check(z.maxLength(4096)),
        id: z.string().check(z.regex(/^[^/\\\0]+$/), z.refine((id) => id !== '.' && id !== '..', 'not a registration id')),
        folder: z.string().check(z.maxLength(4096), z.refine((p) => path.isAbsolute(p), 'not an absolute path')),
        gitdir: z.string().check(z.maxLength(4096), z.refine((p) => path.isAbsolute(p), 'not an absolute path')),
        common: z.optional(z.string().check(z.maxLength(4096), z.refine((p) => !path.isAbsolute(p), 'not a relative path'))),
        // Locked and its folder away at the capture (bug 226): restore links it once it is back, or says how.
        away: z.optional(z.literal(true)),
      }),
    ).check(z.maxLength(OUTSIDE_RECORDED_MAX)),
  ),
  /**
   * `outside` holds every one the capture found: written by every capture that records them all.
   * Absent with `outside` listing exactly 200: an older capture's list, which may have been cut there.
   */
  outsideAll: z.optional(z.literal(true)),
  /** Linked worktrees that were inside the agent's (their files are in the archive, their commits kept): restore links them again. */
  linked: z.optional(z.array(z.object({ path: z.string(), head: z.nullable(z.string().check(z.regex(/^[0-9a-f]{40,64}$/))), branch: z.nullable(z.string()) }))),
  summary: EvidenceSummarySchema,
  /** The archive's file name in the evidence folder, null when there was nothing to archive. */
  archive: z.nullable(z.string()),
  /** Git dirs that lived in the worktree's private git dir (submodules), each archived on its own. */
  gitdirs: z.array(z.object({ path: z.string(), archive: z.string() })),
  /** Repositories in the worktree's private git dir that no checkout pointed at, by their place there; restore puts them back in the new one's. Absent: none. */
  privateGitDirs: z.optional(z.array(z.object({ path: z.string(), archive: z.string() }))),
  /**
   * The files git converts (attributes, core.autocrlf) as they were on disk: a commit whose tree
   * holds their exact bytes (a parent of the snapshot), written back by restore. Absent when none.
   */
  exact: z.optional(z.object({ commit: z.string().check(z.regex(/^[0-9a-f]{40,64}$/)), files: z.number().check(z.int(), z.nonnegative()) })),
  /** Intent-to-add entries and index flags (indexFlagState.ts). Absent: none, or evidence from before they were kept. */
  indexFlags: z.optional(IndexFlagRecordSchema),
  /**
   * The worktree's own `config.worktree` and `info/sparse-checkout` (its sparse checkout), and the
   * state of a merge, rebase, am, cherry-pick, revert or bisect stopped there (`isKeptGitDirFile`),
   * byte for byte in base64; an empty list when it had none. Absent: evidence from before they were kept.
   */
  gitDirFiles: z.optional(z.array(z.object({ path: z.string().check(z.refine(isKeptGitDirFile, 'not a kept file of a worktree git dir')), base64: z.string() }))),
  /** Files of that git dir `isKeptGitDirFile` admits that could not be read, dropped with consent; restore says so. Absent: none. */
  gitDirFilesUnread: z.optional(z.array(z.string())),
  /**
   * The branch a rebase or bisect stopped there returns to (operationBranch.ts) and its tip at
   * capture: restore re-creates it there, HEAD detached, when the cleanup deleted it. Absent: none.
   */
  operationBranch: z.optional(z.object({ name: z.string(), tip: ObjectId })),
  /**
   * The worktree's own refs (refs/worktree, refs/bisect, refs/rewritten), which its git dir held; the
   * snapshot keeps their objects. Absent: none, or evidence from before they were kept. An entry that
   * does not read reads as null: restore says so and puts the others back.
   */
  worktreeRefs: z.optional(z.array(z.catch(z.nullable(WorktreeRefSchema), null))),
  /** Every entry of the worktree except regenerable ones, as walked at capture. */
  entries: z.array(ManifestEntrySchema),
});
export type Manifest = z.infer<typeof ManifestSchema>;

/**
 * The inventory as it is written: checked against the schema it is read with first, so a capture
 * never leaves (and a cleanup never removes anything on the strength of) an inventory restore
 * would refuse, or read with a part missing.
 */
export function manifestText(manifest: Manifest): string {
  const result = ManifestSchema.safeParse(manifest);
  const problem = result.success ? (result.data.worktreeRefs?.findIndex((r) => r === null) ?? -1) : -1;
  if (!result.success || problem >= 0) {
    const where = result.success ? `worktreeRefs.${problem}` : result.error.issues[0]?.path.join('.') || 'schema';
    throw failure(`The evidence inventory of ${manifest.worktree} would not read back (${where}), so it was not written.`);
  }
  return JSON.stringify(manifest);
}

export async function readManifest(file: string): Promise<Manifest> {
  let raw: string;
  try {
    raw = await fs.readFile(file, 'utf8');
  } catch (err) {
    throw failure(`The evidence inventory ${file} cannot be read: ${(err as NodeJS.ErrnoException).code ?? 'error'}.`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw failure(`The evidence inventory ${file} is not valid JSON.`);
  }
  const result = ManifestSchema.safeParse(parsed);
  if (!result.success) throw failure(`The evidence inventory ${file} is damaged (${result.error.issues[0]?.path.join('.') || 'schema'}).`);
  return result.data;
}
