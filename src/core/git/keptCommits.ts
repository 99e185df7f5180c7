/**
 * Commits that removing a worktree (or its branch) would leave unreachable:
 * those named only by the worktree's HEAD reflog, the branch's reflog, the
 * worktree's own refs (refs/worktree, refs/bisect, refs/rewritten) and its
 * pseudo-refs (ORIG_HEAD after a `reset --hard`, MERGE_HEAD…). All of these
 * live in the worktree's private git dir or die with the branch; the snapshot
 * commit takes them as extra parents so its ref keeps them.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { runGit } from './runGit';
import { isCommitId } from './commitId';
import { commonDirOf } from './headFiles';

const READ_ONLY = { GIT_OPTIONAL_LOCKS: '0' };
const PSEUDO_REFS = ['ORIG_HEAD', 'MERGE_HEAD', 'CHERRY_PICK_HEAD', 'REVERT_HEAD', 'REBASE_HEAD'];
const PER_WORKTREE_REFS = ['refs/worktree/', 'refs/bisect/', 'refs/rewritten/'];
/** More extra parents than this and the snapshot commit becomes unwieldy; reflogs rarely hold more lost tips. */
const MAX_KEPT = 200;

/** Both sides of every reflog line ("<old> <new> <who> <when>\t<message>"); a missing log is empty. */
async function reflogCommits(file: string): Promise<string[]> {
  const text = await fs.readFile(file, 'latin1').catch(() => '');
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const [older, newer] = line.split(' ', 2);
    if (isCommitId(older ?? '') && !/^0+$/.test(older)) out.push(older);
    if (isCommitId(newer ?? '') && !/^0+$/.test(newer)) out.push(newer);
  }
  return out;
}

/** The shas a pseudo-ref file names (MERGE_HEAD may name several). */
async function pseudoRefCommits(file: string): Promise<string[]> {
  const text = await fs.readFile(file, 'latin1').catch(() => '');
  return text.split('\n').map((l) => l.trim()).filter((l) => isCommitId(l));
}

/**
 * Commits known only to the worktree or the branch: none of them is reachable
 * from `headSha` or from any other branch, tag or remote-tracking ref. The
 * reflogs and pseudo-refs are read as files (no git process per name).
 */
export async function commitsOnlyInWorktree(worktree: string, gitDir: string, headSha: string, branch: string | null): Promise<string[]> {
  const candidates = new Set<string>();
  for (const sha of await reflogCommits(path.join(gitDir, 'logs', 'HEAD'))) candidates.add(sha);
  if (branch) for (const sha of await reflogCommits(path.join(await commonDirOf(gitDir), 'logs', 'refs', 'heads', ...branch.split('/')))) candidates.add(sha);
  for (const name of PSEUDO_REFS) for (const sha of await pseudoRefCommits(path.join(gitDir, name))) candidates.add(sha);
  const durable: string[] = [headSha];
  const tips = await runGit(['for-each-ref', '--format=%(refname)%00%(objectname)%00%(objecttype)%00%(*objectname)%00%(*objecttype)', 'refs/heads/', 'refs/tags/', 'refs/remotes/'], {
    cwd: worktree,
    env: READ_ONLY,
  });
  for (const line of tips.stdout.split('\n')) {
    const [name, sha, type, peeled, peeledType] = line.split('\0');
    const commit = type === 'commit' ? sha : peeledType === 'commit' ? peeled : undefined;
    if (!commit || !isCommitId(commit)) continue;
    // The agent's own branch may be deleted by this cleanup, and the worktree's own refs go with
    // the worktree: their tips are things to keep, not keepers.
    if ((branch && name === `refs/heads/${branch}`) || PER_WORKTREE_REFS.some((p) => name.startsWith(p))) candidates.add(commit);
    else durable.push(commit);
  }
  candidates.delete(headSha);
  if (candidates.size === 0) return [];
  // rev-list prints exactly the commits reachable from the candidates and from none of the
  // durable tips, so a candidate it prints is one that only the worktree or the branch knows.
  const input = [...candidates, ...durable.map((sha) => `^${sha}`)].join('\n') + '\n';
  const res = await runGit(['rev-list', '--stdin', '--ignore-missing'], { cwd: worktree, env: READ_ONLY, input, allowFailure: true });
  if (res.code !== 0) return [];
  const unreachable = new Set(res.stdout.split('\n').filter((l) => isCommitId(l)));
  return [...candidates].filter((sha) => unreachable.has(sha)).slice(0, MAX_KEPT);
}
