/**
 * Whether the untracked and ignored files of a launch's worktree are exactly the files the launch
 * copied or linked in. Copies are compared in chunks through file handles, sizes first: a large
 * copy (a database, a model) is never read whole onto the window's event loop.
 */
import { lstat, open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { planWorktreeFiles } from '../repoConfig/worktreeFiles';
import type { JobRecord } from '../store';

const CHUNK = 1 << 20;

export interface LaunchFiles {
  copied: readonly string[];
  linked: readonly string[];
}

/** What the launch copies and links in, found in the main worktree as the launch found it. */
export async function launchFilesOf(job: JobRecord): Promise<LaunchFiles> {
  const plan = await planWorktreeFiles({ repo: job.repo, copy: job.settings.worktree?.copy ?? [], link: job.settings.worktree?.link ?? [] });
  return { copied: plan?.copied ?? [], linked: plan?.linked ?? [] };
}

/** Null when every one of `paths` is a file the launch copied (same bytes as the main worktree's) or a link it made. */
export async function notTheLaunchCopies(plan: LaunchFiles, repo: string, worktree: string, paths: readonly string[]): Promise<string | null> {
  const linked = new Set(plan.linked);
  const copied = new Set(plan.copied);
  for (const rel of paths) {
    const at = join(worktree, rel);
    if (linked.has(rel) && (await lstat(at)).isSymbolicLink()) continue;
    if (copied.has(rel) && (await sameBytes(at, join(repo, rel)))) continue;
    return `${rel} in it is not a file the launch put there`;
  }
  return null;
}

/** Same size, then the same bytes chunk by chunk; any error reads as different. */
export async function sameBytes(a: string, b: string): Promise<boolean> {
  try {
    const [sa, sb] = await Promise.all([lstat(a), stat(b)]);
    if (!sa.isFile() || !sb.isFile() || sa.size !== sb.size) return false;
    const [fa, fb] = await Promise.all([open(a, 'r'), open(b, 'r')]);
    try {
      const x = Buffer.alloc(CHUNK);
      const y = Buffer.alloc(CHUNK);
      for (let at = 0; ; ) {
        const [ra, rb] = await Promise.all([fa.read(x, 0, CHUNK, at), fb.read(y, 0, CHUNK, at)]);
        if (ra.bytesRead !== rb.bytesRead) return false;
        if (ra.bytesRead === 0) return true;
        if (!x.subarray(0, ra.bytesRead).equals(y.subarray(0, rb.bytesRead))) return false;
        at += ra.bytesRead;
      }
    } finally {
      await Promise.all([fa.close(), fb.close()]);
    }
  } catch {
    return false;
  }
}
