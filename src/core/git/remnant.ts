/**
 * A worktree folder that git no longer knows: a removal that failed half-way
 * (git deletes `.git` and the registration first, then fails on a folder it
 * cannot delete). Its contents may be deleted only when every entry left in it
 * is one the recorded evidence already holds, unchanged (or is regenerable).
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { regenerableMatcher } from './classify';
import type { Manifest } from './evidenceManifest';
import { walkWorktree } from './inventory';
import { firstChangedEntry } from './changedSince';

export function isGitless(worktree: string): boolean {
  return existsSync(worktree) && !existsSync(path.join(worktree, '.git'));
}

/**
 * null when everything left is in the evidence; else the first path that is not (or changed). The
 * status-change time is not compared here: what is left of a half-removed worktree was compared in
 * full right before git began removing it, and a person who lifts what stopped the removal
 * (`chattr -i`, a chmod) changes only that time — compared, the remnant could never be cleaned up.
 */
export async function firstUnsavedEntry(worktree: string, manifest: Manifest, regenerable: readonly string[]): Promise<string | null> {
  return firstChangedEntry(await walkWorktree(worktree), manifest.entries, regenerableMatcher(regenerable), { ctime: false });
}
