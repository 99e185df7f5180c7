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
import { isValidRefName } from './repo';
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
  if (!(await isValidRefName(repo, snapshotRef))) throw usageError(`Job id '${jobId}' cannot name a git ref.`);
  // One rev-parse answers both: the index path (first line) and HEAD's commit (second).
  const probe = await runGit(['rev-parse', '--path-format=absolute', '--git-path', 'index', '--verify', 'HEAD^{commit}'], {
    cwd: worktree,
    allowFailure: true,
  });
  const [realIndex, headSha] = probe.stdout.split('\n').map((l) => l.trim());
  if (probe.code !== 0 || !realIndex || !/^[0-9a-f]{40,64}$/.test(headSha ?? '')) {
    throw failure(`Could not capture ${worktree}: ${firstLine(probe.stderr) || 'it is not a git worktree with a commit'}.`);
  }

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

    const fileCount = await writePatch(repo, baseSha, tree, opts.patchPath);
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

/**
 * Paths that differ between the two trees (what `diff-tree -r --name-only --no-renames` lists),
 * read from the patch instead of a second diff: every entry's path, and both sides of a rename.
 * Only header lines can start with "diff --git " or "rename from ": content lines start with
 * ' ', '+', '-', '@', '\\' and binary data lines are base85 without spaces.
 */
export function countPatchPaths(patch: string): number {
  const paths = new Set<string>();
  const header = 'diff --git ';
  for (let at = patch.startsWith(header) ? 0 : patch.indexOf(`\n${header}`); at >= 0; at = patch.indexOf(`\n${header}`, at + 1)) {
    let start = patch[at] === '\n' ? at + 1 : at;
    let end = lineEnd(patch, start);
    const line = patch.slice(start + header.length, end);
    // Extended header lines follow until the content ("---", "Binary files", "GIT binary patch") or the next entry.
    let renamed = false;
    for (start = end + 1; start < patch.length; start = end + 1) {
      end = lineEnd(patch, start);
      const next = patch.slice(start, end);
      if (next.startsWith('rename from ')) paths.add(next.slice('rename from '.length));
      else if (next.startsWith('rename to ')) paths.add(next.slice('rename to '.length));
      else if (!EXTENDED_HEADER.test(next)) break;
      if (next.startsWith('rename ')) renamed = true;
    }
    if (renamed) continue;
    // "a/P b/P", each side quoted alike when P needs it: the first half names the path.
    const a = line.slice(0, (line.length - 1) / 2);
    paths.add(a.startsWith('"') ? `"${a.slice(3)}` : a.slice(2));
  }
  return paths.size;
}

const EXTENDED_HEADER = /^(old mode|new mode|deleted file mode|new file mode|similarity index|dissimilarity index|rename from|rename to|copy from|copy to|index) /;

/** Above this size the patch is not read back to count its paths. */
const PATCH_READ_LIMIT = 32 * 1024 * 1024;

async function countChangedPaths(repo: string, baseSha: string, tree: string): Promise<number> {
  const res = await runGit(['diff-tree', '-r', '-z', '--name-only', '--no-renames', baseSha, tree], { cwd: repo });
  return res.stdout.split('\0').filter((s) => s.length > 0).length;
}

function lineEnd(text: string, from: number): number {
  const end = text.indexOf('\n', from);
  return end < 0 ? text.length : end;
}

/** Writes the base → tree patch durably (temp file, fsync, rename); returns how many paths it changes. */
async function writePatch(repo: string, baseSha: string, tree: string, patchPath: string): Promise<number> {
  await fs.mkdir(path.dirname(patchPath), { recursive: true });
  const temp = `${patchPath}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await runGit(['diff-tree', ...PATCH_DIFF_OPTIONS, `--output=${temp}`, baseSha, tree], { cwd: repo });
    const handle = await fs.open(temp, 'r+');
    let count: number;
    try {
      await handle.sync();
      // A huge patch (large binaries) is not read into one string, which could exceed V8's limit
      // and fail the capture: git lists the paths instead.
      const { size } = await handle.stat();
      count = size <= PATCH_READ_LIMIT ? countPatchPaths(await handle.readFile('latin1')) : await countChangedPaths(repo, baseSha, tree);
    } finally {
      await handle.close();
    }
    await fs.rename(temp, patchPath);
    // The rename is durable only once its directory is: the patch must survive a crash before any removal.
    const dir = await fs.open(path.dirname(patchPath), 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
    return count;
  } catch (err) {
    await fs.rm(temp, { force: true });
    throw err;
  }
}
