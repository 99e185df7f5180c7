/**
 * The evidence patch: `base → snapshot tree` as a binary diff, written durably
 * and proven before it counts. git 2.39 exits 0 from `diff-tree --output` on a
 * full disk (ENOSPC), so the patch goes to git's standard output opened on the
 * file (whose writes git checks); and a short patch must not look like a good
 * one anyway: it is applied to the base in a temporary index and must give back
 * the snapshot's tree exactly, before it is renamed over any earlier patch.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { failure } from '../common/errors';
import { ALL_SUBMODULES, firstLine, GIT_BULK_TIMEOUT_MS, NO_HOOKS_ENV, runGit } from './runGit';
import { makeDirs } from '../common/makeDirs';

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
  ALL_SUBMODULES,
];

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
  const res = await runGit(['diff-tree', '-r', '-z', '--name-only', '--no-renames', ALL_SUBMODULES, baseSha, tree], { cwd: repo });
  return res.stdout.split('\0').filter((s) => s.length > 0).length;
}

function lineEnd(text: string, from: number): number {
  const end = text.indexOf('\n', from);
  return end < 0 ? text.length : end;
}

/**
 * Writes the base → tree patch to a temporary file beside `patchPath`, fsynced
 * and verified; returns it with how many paths it changes. The caller renames
 * it into place once the rest of the evidence is good too.
 */
export async function writeVerifiedPatch(repo: string, baseSha: string, tree: string, patchPath: string, scratch: string): Promise<{ temp: string; count: number }> {
  await makeDirs(path.dirname(patchPath), 0o700);
  const temp = `${patchPath}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    const handle = await fs.open(temp, 'w+', 0o600);
    let count: number;
    try {
      const made = await runGit(['diff-tree', ...PATCH_DIFF_OPTIONS, baseSha, tree], { cwd: repo, stdoutFd: handle.fd, allowFailure: true, timeoutMs: GIT_BULK_TIMEOUT_MS });
      if (made.code !== 0) throw failure(await patchWriteError(temp, firstLine(made.stderr) || `exit code ${made.code}`));
      await handle.sync();
      // A huge patch (large binaries) is not read into one string, which could exceed V8's limit
      // and fail the capture: git lists the paths instead.
      const { size } = await handle.stat();
      count = size <= PATCH_READ_LIMIT ? countPatchPaths(await fs.readFile(temp, 'latin1')) : await countChangedPaths(repo, baseSha, tree);
      await verifyPatch(repo, baseSha, tree, temp, size, scratch);
    } finally {
      await handle.close();
    }
    return { temp, count };
  } catch (err) {
    await fs.rm(temp, { force: true });
    throw err;
  }
}

/** Why the patch could not be written, in one sentence: a full disk said as such (git only says "write failure"). */
async function patchWriteError(temp: string, gitSays: string): Promise<string> {
  const free = await fs.statfs(path.dirname(temp)).then(
    (s) => s.bavail * s.bsize,
    () => null,
  );
  if (free !== null && free < FULL_DISK_BYTES) return `There is no space left on the disk of ${path.dirname(temp)} for the evidence patch (git: ${gitSays}).`;
  return `Could not write the evidence patch to ${path.dirname(temp)}: ${gitSays}.`;
}

/** Free space below this after a failed write means the write failed because the disk is full. */
const FULL_DISK_BYTES = 1024 * 1024;

/** The patch applied to `baseSha` in a scratch index must give exactly `tree`. */
async function verifyPatch(repo: string, baseSha: string, tree: string, patch: string, size: number, scratch: string): Promise<void> {
  const env = { GIT_INDEX_FILE: path.join(scratch, 'verify-index'), ...NO_HOOKS_ENV }; // no hooks on a scratch index
  if (size === 0) {
    const baseTree = (await runGit(['rev-parse', '--verify', `${baseSha}^{tree}`], { cwd: repo })).stdout.trim();
    if (baseTree !== tree) throw failure('The evidence patch came out empty although the worktree differs from its base (is the disk full?).');
    return;
  }
  await runGit(['read-tree', baseSha], { cwd: repo, env });
  const applied = await runGit(['apply', '--cached', '--binary', '--whitespace=nowarn', patch], { cwd: repo, env, allowFailure: true });
  if (applied.code !== 0) {
    throw failure(`The evidence patch does not apply to the base (is the disk full?): ${firstLine(applied.stderr) || `exit code ${applied.code}`}.`);
  }
  const got = (await runGit(['write-tree'], { cwd: repo, env })).stdout.trim();
  if (got !== tree) throw failure('The evidence patch does not reproduce the snapshot exactly; the earlier evidence is kept.');
}
