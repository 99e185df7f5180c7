/** What changed in a worktree, and a cheap fingerprint of its state. */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync } from 'node:fs';
import * as path from 'node:path';
import { ALL_SUBMODULES, READ_ONLY_GIT, runGit } from './runGit';
import { worktreeGitEnv } from './worktreeGitEnv';

export interface ChangedFile {
  /** A added, M modified, D deleted, R renamed, C copied, T type changed, ? untracked. */
  status: string;
  path: string;
  oldPath?: string;
}

/**
 * Files whose content in the worktree differs from `baseSha`: committed,
 * staged and unstaged changes, plus untracked (not ignored) files. Read through `repo`'s record of
 * the worktree (worktreeGitEnv): never a repository the agent made there, nor one of a folder above.
 * `branch`: the agent's (worktreeGitEnv).
 */
export async function changedFiles(repo: string, worktree: string, baseSha: string, branch?: string | null): Promise<ChangedFile[]> {
  const env = { ...READ_ONLY_GIT, ...(await worktreeGitEnv(repo, worktree, branch)) };
  const diff = await runGit(['diff', '--name-status', '-z', '-M', '--no-color', '--no-ext-diff', ALL_SUBMODULES, baseSha, '--'], { cwd: worktree, env });
  const out: ChangedFile[] = [];
  const fields = diff.stdout.split('\0');
  for (let i = 0; i + 1 < fields.length; ) {
    const status = fields[i++];
    if (!status) break;
    const kind = status[0];
    if (kind === 'R' || kind === 'C') {
      const oldPath = fields[i++];
      out.push({ status: kind, path: fields[i++], oldPath });
    } else {
      out.push({ status: kind, path: fields[i++] });
    }
  }
  const untracked = await runGit(['ls-files', '--others', '--exclude-standard', '-z'], { cwd: worktree, env });
  for (const p of untracked.stdout.split('\0')) if (p) out.push({ status: '?', path: p });
  return out;
}

/**
 * A hash of HEAD, `status --porcelain=v2` and the size/mtime of every changed
 * path, so that an edit to an already-modified file changes it too. A missing
 * worktree has a fingerprint of its own. Read as `changedFiles` reads: a worktree whose link the
 * agent cut is read through `repo`'s record of it, not an outer checkout whose every change would
 * count as the worktree's. `branch`: the agent's (worktreeGitEnv).
 */
export async function worktreeFingerprint(repo: string, worktree: string, branch?: string | null): Promise<string> {
  const hash = createHash('sha256');
  if (!existsSync(worktree)) return hash.update(`missing\0${path.resolve(worktree)}`).digest('hex');
  const env = { ...READ_ONLY_GIT, ...(await worktreeGitEnv(repo, worktree, branch)) };
  const head = await runGit(['rev-parse', '--verify', '--quiet', 'HEAD'], { cwd: worktree, env, allowFailure: true });
  const status = await runGit(['status', '--porcelain=v2', '-z', '--untracked-files=all', '--ignore-submodules=none'], { cwd: worktree, env, allowFailure: true });
  hash.update(`head\0${head.stdout.trim()}\0status\0${status.code}\0${status.stdout}\0`);
  for (const p of pathsOf(status.stdout)) {
    try {
      const st = lstatSync(path.join(worktree, p));
      hash.update(`${p}\0${st.size}\0${st.mtimeMs}\0${st.mode}\0`);
    } catch {
      hash.update(`${p}\0gone\0`);
    }
  }
  return hash.digest('hex');
}

/** Paths named by `status --porcelain=v2 -z` entries (the new path of renames). */
function pathsOf(statusZ: string): string[] {
  const paths: string[] = [];
  const fields = statusZ.split('\0');
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i];
    if (f.startsWith('1 ')) paths.push(f.split(' ').slice(8).join(' '));
    else if (f.startsWith('2 ')) {
      paths.push(f.split(' ').slice(9).join(' '));
      i++; // the original path follows as its own field
    } else if (f.startsWith('u ')) paths.push(f.split(' ').slice(10).join(' '));
    else if (f.startsWith('? ')) paths.push(f.slice(2));
  }
  return paths;
}
