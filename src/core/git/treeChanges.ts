/**
 * What `git diff-tree -r -z --no-renames` says changed between two trees, per
 * path: its mode before and after. Several checks of one landing ask the same
 * question of the same two commits (nested repositories it would record as
 * gitlinks, files on disk it would overwrite); they share one git process.
 * Paths are read keeping every byte (`names`): a name that is not UTF-8 would
 * otherwise become another path, put back, staged or removed in its stead.
 */
import { ALL_SUBMODULES, GIT_BULK_TIMEOUT_MS, runGit } from './runGit';

/** The mode of a path a tree does not hold. */
export const ABSENT_MODE = '000000';
export const GITLINK_MODE = '160000';

export interface PathChange {
  /** Mode in the first tree (`ABSENT_MODE` when it has no such path). */
  oldMode: string;
  /** Mode in the second tree (`ABSENT_MODE` when it has no such path). */
  newMode: string;
  /** Object id in the second tree (all zeros when it has no such path): a submodule's commit, for the index. */
  newId: string;
  path: string;
}

/**
 * Parses `diff-tree -r -z` records (":<old mode> <new mode> <old id> <new id> <status>\0<path>\0").
 * `--stdin` heads each pair's first record with the pair's ids and a newline (a pair with no
 * difference: its header alone); the header is skipped.
 */
export function parseTreeChanges(stdout: string): PathChange[] {
  const out: PathChange[] = [];
  const fields = stdout.split('\0');
  for (let i = 0; i < fields.length; i++) {
    const record = fields[i].startsWith(':') ? fields[i] : fields[i].slice(fields[i].lastIndexOf('\n') + 1);
    if (!record.startsWith(':')) continue;
    const [oldMode, newMode, , newId] = record.slice(1).split(' ');
    out.push({ oldMode, newMode, newId, path: fields[++i] });
  }
  return out;
}

/** Every path that differs between `from` and `to` (commits or trees), in one git process. */
export async function treeChanges(cwd: string, from: string, to: string): Promise<PathChange[]> {
  const res = await runGit(['diff-tree', '-r', '-z', '--no-renames', ALL_SUBMODULES, from, to, '--'], { cwd, timeoutMs: GIT_BULK_TIMEOUT_MS, names: true });
  return parseTreeChanges(res.stdout);
}
