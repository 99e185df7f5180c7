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

export function isGitless(worktree: string): boolean {
  return existsSync(worktree) && !existsSync(path.join(worktree, '.git'));
}

/** null when everything left is in the evidence; else the first path that is not (or changed). */
export async function firstUnsavedEntry(worktree: string, manifest: Manifest, regenerable: readonly string[]): Promise<string | null> {
  const known = new Map(manifest.entries.map((e) => [e.path, e]));
  const isRegenerable = regenerableMatcher(regenerable);
  const walk = await walkWorktree(worktree);
  if (walk.unreadable.length > 0) return walk.unreadable[0];
  for (const e of walk.entries) {
    if (isRegenerable(e.path) || e.type === 'socket') continue;
    const was = known.get(e.path);
    if (!was || was.type !== e.type) return e.path;
    if (e.type !== 'dir' && (was.size !== e.size || was.mtimeMs !== e.mtimeMs)) return e.path;
  }
  return null;
}
