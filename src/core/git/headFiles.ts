/**
 * A worktree's HEAD read from the files git keeps (`.git` folder, or `.git` →
 * gitdir; HEAD; the branch's loose or packed ref), with no process: for the
 * standing figures of many agents, and for a landing's last check that the
 * target is still where it was. Any other layout (a reftable, a symlinked ref,
 * a ref git would have to peel) gives `undefined`: ask git then.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

export interface HeadFromFiles {
  head: string;
  /** The worktree's own git directory (where its index and HEAD live). */
  gitDir: string;
  /** The branch HEAD names (`refs/heads/…`), or null when HEAD is detached. */
  ref: string | null;
}

const SHA = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

export async function readHeadFromFiles(worktree: string): Promise<HeadFromFiles | undefined> {
  const dotGit = path.join(worktree, '.git');
  let gitDir: string;
  if ((await fs.lstat(dotGit)).isDirectory()) gitDir = dotGit;
  else {
    const link = /^gitdir: (.+)$/m.exec(await fs.readFile(dotGit, 'utf8'));
    if (!link) return undefined;
    gitDir = path.resolve(worktree, link[1].trim());
  }
  const headText = (await fs.readFile(path.join(gitDir, 'HEAD'), 'utf8')).trim();
  if (SHA.test(headText)) return { head: headText, gitDir, ref: null };
  const ref = /^ref: (refs\/heads\/[^\s]+)$/.exec(headText)?.[1];
  if (!ref) return undefined;
  const commonDir = path.resolve(gitDir, (await fs.readFile(path.join(gitDir, 'commondir'), 'utf8').catch(() => '.')).trim());
  const loose = await fs.readFile(path.join(commonDir, ref), 'utf8').then((t) => t.trim(), () => undefined);
  if (loose !== undefined) return SHA.test(loose) ? { head: loose, gitDir, ref } : undefined;
  const packed = await fs.readFile(path.join(commonDir, 'packed-refs'), 'utf8').catch(() => '');
  for (const line of packed.split('\n')) {
    const [sha, name] = line.trim().split(' ');
    if (name === ref && SHA.test(sha)) return { head: sha, gitDir, ref };
  }
  return undefined;
}
