/**
 * Bug 226: a nested repository's linked worktree outside the agent's, locked (`git worktree lock`)
 * and away (its folder not there, as on a drive not mounted), was named by nothing: not the
 * cleanup's confirmation, not its summary, not restore. Its git data (HEAD, index, commits) is
 * archived with the agent's worktree, so when it came back git failed there, unsaid.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { renameSync } from 'node:fs';
import * as path from 'node:path';
import { captureEvidence } from '../../../../src/core/git/evidence';
import { restoreWorktree } from '../../../../src/core/git/restore';
import { removeWorktree } from '../../../../src/core/git/worktree';
import { outsideConfirmLines, outsideWorktreesNow } from '../../../../src/core/operations/cleanupConfirm';
import { Sandbox, git, useGitSandbox, write } from './gitTestUtil';

const WHO = ['-c', 'user.name=A', '-c', 'user.email=a@b.c'];

describe('git: a locked linked worktree of a nested repository, away at the cleanup (bug 226)', function () {
  this.timeout(120_000);
  let sb!: Sandbox;
  let repo: string;
  let wt: string;
  let outside: string;
  let unmounted: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'README.md': 'hello\n' });
    wt = sb.agentWorktree(repo);
    const inner = path.join(wt, 'inner');
    git(wt, 'init', '-q', '-b', 'main', 'inner');
    write(inner, 'x.txt', 'x\n');
    git(inner, 'add', '.');
    git(inner, ...WHO, 'commit', '-q', '-m', 'x');
    outside = sb.path('drive', 'outside');
    git(inner, 'worktree', 'add', '-q', '-b', 'side', outside);
    write(outside, 'staged.txt', 'staged\n');
    git(outside, 'add', 'staged.txt');
    git(inner, 'worktree', 'lock', '--reason', 'on a removable drive', outside);
    // The drive is unmounted: the folder is not there at all.
    unmounted = sb.path('unmounted');
    renameSync(sb.path('drive'), unmounted);
  });

  async function capture(): Promise<string[]> {
    const ev = await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1' });
    await removeWorktree(repo, wt);
    return ev.summary.foreignWorktrees ?? [];
  }
  const restore = (target: string) => restoreWorktree({ repo, snapshotRef: 'refs/paddock/snapshots/job1', evidenceDir: sb.path('store', 'evidence'), target, branch: 'paddock/job1' });

  it('the confirmation and the summary name it, and restore elsewhere links it once it is back, its staged change kept', async () => {
    const lines = outsideConfirmLines(await outsideWorktreesNow(wt));
    assert.equal(lines.length, 1, 'named before the person agrees');
    assert.ok(lines[0]!.startsWith(`• ${outside} (on side), a linked worktree of inner in the agent's worktree, locked and away (its folder is not there now, as on a drive not mounted): its git data (HEAD, index, commits) is archived with the worktree, and when it comes back git fails there until Restore Worktree brings it back`), lines[0]);
    const words = await capture();
    assert.equal(words.length, 1, words.join('\n'));
    assert.match(words[0]!, /^inner: a repository in the agent's worktree with a linked worktree outside it, .*outside \(on side\), locked and away .*when the folder comes back git fails in it until `paddock restore`/);
    renameSync(unmounted, sb.path('drive')); // the drive is back
    const result = await restore(sb.path('elsewhere'));
    assert.deepEqual(result.problems.filter((p) => /linked worktree/.test(p)), []);
    assert.equal(git(outside, 'rev-parse', '--abbrev-ref', 'HEAD').trim(), 'side', 'git works there again');
    assert.equal(git(outside, 'diff', '--cached', '--name-only').trim(), 'staged.txt', 'its index (the staged change) came back');
  });

  it('still away at a restore elsewhere: restore says what to do once it is back, and doing it works', async () => {
    await capture();
    const target = sb.path('elsewhere');
    const result = await restore(target);
    const said = result.problems.find((p) => /locked and away at the cleanup/.test(p));
    assert.ok(said, result.problems.join('\n'));
    assert.match(said, /is still not there: when it comes back, its \.git names .*, gone, and git fails there until it is linked to the restored repository/);
    renameSync(unmounted, sb.path('drive'));
    for (const m of said.matchAll(/`([^`]*printf [^`]*)`/g)) execFileSync('bash', ['-c', m[1]!]);
    assert.equal(git(outside, 'diff', '--cached', '--name-only').trim(), 'staged.txt', 'linked by hand, git works there, its staged change kept');
  });
});
