/**
 * Evidence before destruction: the worktree's full state is committed to
 * `refs/paddock/snapshots/<jobId>` and written as a binary patch, without
 * touching the worktree's own index (which may be locked by a crashed git).
 *
 * How: copy the worktree's index (for its stat cache) to a temporary file,
 * `git add -A` into it with GIT_INDEX_FILE, `write-tree`, `commit-tree` with
 * HEAD as parent, `update-ref`. Tracked changes, deletions, untracked files,
 * binaries, mode changes and renames are all in that tree; staged changes are
 * too (when a file was staged and then edited again, the file as on disk wins).
 * Ignored files (.gitignore) are not captured.
 *
 * The patch is `base → snapshot tree`, not `HEAD → snapshot`: applying it with
 * `git apply --index --binary` to a fresh checkout of `baseSha` reproduces the
 * snapshot tree exactly, including whatever the agent committed on its branch.
 * (The snapshot commit itself keeps the agent's commits reachable.)
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { failure, usageError } from '../common/errors';
import { firstLine, runGit } from './runGit';

export interface CaptureOptions {
  repo: string;
  worktree: string;
  jobId: string;
  /** Where the patch is written (the job folder's evidence/snapshot.patch). */
  patchPath: string;
  baseSha: string;
}

export interface CapturedEvidence {
  /** refs/paddock/snapshots/<jobId>, pointing at the snapshot commit. */
  snapshotRef: string;
  /** The snapshot commit. */
  snapshotSha: string;
  /** The worktree's HEAD when captured (the snapshot commit's parent). */
  headSha: string;
  /** Path of the patch written (base → snapshot tree); empty file when nothing differs. */
  patch: string;
  /** Files that differ between base and the snapshot (what the patch contains). */
  fileCount: number;
}

export const SNAPSHOT_NAMESPACE = 'refs/paddock/snapshots/';

/** Identity for snapshot commits, so capture works where user.name/email are not configured. */
const SNAPSHOT_AUTHOR = {
  GIT_AUTHOR_NAME: 'Paddock',
  GIT_AUTHOR_EMAIL: 'paddock@localhost',
  GIT_COMMITTER_NAME: 'Paddock',
  GIT_COMMITTER_EMAIL: 'paddock@localhost',
};

/** Options that make a diff byte-for-byte appliable whatever the user's diff config says. */
const PATCH_DIFF_OPTIONS = [
  '-r',
  '-p',
  '--binary',
  '--full-index',
  '-M',
  '--no-color',
  '--no-ext-diff',
  '--no-textconv',
  '--src-prefix=a/',
  '--dst-prefix=b/',
  '--submodule=short',
];

export async function captureEvidence(opts: CaptureOptions): Promise<CapturedEvidence> {
  const { repo, worktree, jobId, baseSha } = opts;
  const snapshotRef = `${SNAPSHOT_NAMESPACE}${jobId}`;
  const [check, head, index] = await Promise.all([
    runGit(['check-ref-format', snapshotRef], { cwd: repo, allowFailure: true }),
    runGit(['rev-parse', '--verify', 'HEAD^{commit}'], { cwd: worktree, allowFailure: true }),
    runGit(['rev-parse', '--path-format=absolute', '--git-path', 'index'], { cwd: worktree, allowFailure: true }),
  ]);
  if (check.code !== 0) throw usageError(`Job id '${jobId}' cannot name a git ref.`);
  if (head.code !== 0 || index.code !== 0) {
    throw failure(`Could not capture ${worktree}: ${firstLine(head.stderr || index.stderr) || 'it is not a git worktree with a commit'}.`);
  }
  const headSha = head.stdout.trim();
  const realIndex = index.stdout.trim();

  const scratch = await fs.mkdtemp(path.join(tmpdir(), 'paddock-capture-'));
  try {
    const tempIndex = path.join(scratch, 'index');
    const env = { GIT_INDEX_FILE: tempIndex, ...SNAPSHOT_AUTHOR };
    await stageEverything(worktree, realIndex, tempIndex, env);
    const tree = (await runGit(['write-tree'], { cwd: worktree, env })).stdout.trim();
    const message = `paddock snapshot of ${jobId}\n\nWorktree: ${worktree}\nCaptured: ${new Date().toISOString()}\n`;
    const snapshotSha = (await runGit(['commit-tree', tree, '-p', headSha], { cwd: worktree, env, input: message })).stdout.trim();
    // --create-reflog keeps earlier snapshots of the same job (a retried cleanup) reachable for a while.
    await runGit(['update-ref', '--create-reflog', '-m', 'paddock snapshot', snapshotRef, snapshotSha], { cwd: repo });

    const [fileCount] = await Promise.all([countChanged(repo, baseSha, tree), writePatch(repo, baseSha, tree, opts.patchPath)]);
    return { snapshotRef, snapshotSha, headSha, patch: opts.patchPath, fileCount };
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

/** Fills the temporary index with the worktree as it is on disk. */
async function stageEverything(worktree: string, realIndex: string, tempIndex: string, env: NodeJS.ProcessEnv): Promise<void> {
  let copied = false;
  try {
    // Index writes are lock + rename, so a copy is always a complete index (a leftover index.lock is ignored).
    const original = await fs.stat(realIndex);
    await fs.copyFile(realIndex, tempIndex);
    // git trusts an entry's cached stat only when the file is older than the index ("racy git"):
    // a fresh mtime on the copy would hide a same-size edit made in the same second as the last
    // index write. Keep the original time, a second earlier for rounding, so such entries are re-read.
    const when = new Date(original.mtimeMs - 1000);
    await fs.utimes(tempIndex, when, when);
    copied = true;
  } catch {
    // No readable index: start from HEAD below.
  }
  if (copied) {
    const add = await runGit(['add', '-A', '--', '.'], { cwd: worktree, env, allowFailure: true });
    if (add.code === 0) return;
    await fs.rm(tempIndex, { force: true }); // an unusable index copy: start over from HEAD
  }
  await runGit(['read-tree', 'HEAD'], { cwd: worktree, env });
  const add = await runGit(['add', '-A', '--', '.'], { cwd: worktree, env, allowFailure: true });
  if (add.code !== 0) throw failure(`Could not capture the worktree ${worktree}: ${firstLine(add.stderr)}`);
}

async function countChanged(repo: string, baseSha: string, tree: string): Promise<number> {
  const res = await runGit(['diff-tree', '-r', '-z', '--name-only', '--no-renames', baseSha, tree], { cwd: repo });
  return res.stdout.split('\0').filter((s) => s.length > 0).length;
}

/** Writes the base → tree patch durably: to a temp file, fsync, rename. */
async function writePatch(repo: string, baseSha: string, tree: string, patchPath: string): Promise<void> {
  await fs.mkdir(path.dirname(patchPath), { recursive: true });
  const temp = `${patchPath}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await runGit(['diff-tree', ...PATCH_DIFF_OPTIONS, `--output=${temp}`, baseSha, tree], { cwd: repo });
    const handle = await fs.open(temp, 'r+');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temp, patchPath);
  } catch (err) {
    await fs.rm(temp, { force: true });
    throw err;
  }
}
