/**
 * Bug 178: the confirmation before a cleanup named no linked worktree outside the agent's whose git
 * data the cleanup archives and removes (bug 169); the summary and a consent stop did, after the
 * person had agreed. The lines the modal adds are read here as the capture reads them.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, openSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { outsideConfirmLines, outsideWorktreesNow } from '../../../../src/core/operations/cleanupConfirm';
import type { OutsideWorktree } from '../../../../src/core/git/outsideWorktrees';
import { Sandbox, git, useGitSandbox, write } from '../git/gitTestUtil';

const WHO = ['-c', 'user.name=A', '-c', 'user.email=a@b.c'];

describe('operations: what the cleanup confirmation names (bug 178)', function () {
  this.timeout(60_000);
  let sb!: Sandbox;
  useGitSandbox((fresh) => (sb = fresh));

  it("names a nested repository's linked worktree outside the agent's, and says git fails there until Restore Worktree", async () => {
    const repo = sb.repo({ 'README.md': 'hello\n' });
    const wt = sb.agentWorktree(repo);
    assert.deepEqual(outsideConfirmLines(await outsideWorktreesNow(wt)), [], 'nothing to name');
    git(wt, 'init', '-q', '-b', 'main', 'inner');
    const inner = path.join(wt, 'inner');
    write(inner, 'x.txt', 'x\n');
    git(inner, 'add', '.');
    git(inner, ...WHO, 'commit', '-q', '-m', 'x');
    const outside = sb.path('outside');
    git(inner, 'worktree', 'add', '-q', '-b', 'side', outside);
    const lines = outsideConfirmLines(await outsideWorktreesNow(wt));
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /outside \(on side\), a linked worktree of inner in the agent's worktree: its files stay, .*git fails there until Restore Worktree/);
    assert.deepEqual(await outsideWorktreesNow(sb.path('gone')), [], 'a worktree that is gone names nothing');
  });

  it('the look can be cancelled (the person is shown its progress), and finds the nested repositories from their .git entries alone', async () => {
    const repo = sb.repo({ 'README.md': 'hello\n' });
    const wt = sb.agentWorktree(repo);
    git(wt, 'init', '-q', '-b', 'main', 'deep/inner');
    const inner = path.join(wt, 'deep', 'inner');
    write(inner, 'x.txt', 'x\n');
    git(inner, 'add', '.');
    git(inner, ...WHO, 'commit', '-q', '-m', 'x');
    git(inner, 'worktree', 'add', '-q', '-b', 'side', sb.path('outside'));
    const stop = new AbortController();
    assert.equal((await outsideWorktreesNow(wt, stop.signal)).length, 1);
    stop.abort(new Error('cancelled'));
    await assert.rejects(outsideWorktreesNow(wt, stop.signal), /cancelled/, 'a cancelled look stops, and is not taken for "none"');
  });

  it('a FIFO named .git in the worktree, or as an outside worktree\'s .git, is never opened: the look ends, and a cancel is heard (bug 224)', async () => {
    const repo = sb.repo({ 'README.md': 'hello\n' });
    const wt = sb.agentWorktree(repo);
    git(wt, 'init', '-q', '-b', 'main', 'inner');
    const inner = path.join(wt, 'inner');
    write(inner, 'x.txt', 'x\n');
    git(inner, 'add', '.');
    git(inner, ...WHO, 'commit', '-q', '-m', 'x');
    const outside = sb.path('outside');
    git(inner, 'worktree', 'add', '-q', '-b', 'side', outside);
    git(inner, 'worktree', 'add', '-q', '-b', 'fifo', sb.path('fifoSide'));
    // Nothing ever writes to these FIFOs: a read of one would wait for ever (and hold a pool thread).
    const fifos = [path.join(sb.path('fifoSide'), '.git'), path.join(wt, 'sub', '.git')];
    rmSync(fifos[0]!);
    mkdirSync(path.join(wt, 'sub'));
    for (const f of fifos) execFileSync('mkfifo', [f]);
    try {
      const stop = new AbortController();
      const cancel = setTimeout(() => stop.abort(new Error('cancelled')), 2000);
      const settled = await Promise.race([
        outsideWorktreesNow(wt, stop.signal).then((found) => found.map((o) => o.folder), (err: Error) => err.message),
        new Promise<string>((resolve) => setTimeout(() => resolve('never settled'), 6000)),
      ]);
      clearTimeout(cancel);
      assert.deepEqual(settled, [outside], 'the real one named, the FIFO one not (not this repository\'s, as git sees it), no wait');
      const aborted = new AbortController();
      aborted.abort(new Error('cancelled'));
      await assert.rejects(outsideWorktreesNow(wt, aborted.signal), /cancelled/, 'a cancelled look is not taken for its answer');
    } finally {
      // Frees a reader an old build left stuck in open(2) (opened and closed, never written), so the run can end.
      for (const f of fifos) {
        try {
          closeSync(openSync(f, constants.O_WRONLY | constants.O_NONBLOCK));
        } catch {
          /* no reader: nothing stuck */
        }
      }
    }
  });

  it('past 20 outside worktrees, a line counts the rest', () => {
    const many: OutsideWorktree[] = Array.from({ length: 25 }, (_, k) => ({ repo: 'inner', id: `w${k}`, folder: `/elsewhere/w${k}`, gitdir: `/x/inner/.git/worktrees/w${k}`, branch: null }));
    const lines = outsideConfirmLines(many);
    assert.equal(lines.length, 21);
    assert.match(lines[19]!, /\/elsewhere\/w19,/);
    assert.match(lines[20]!, /^• …and 5 more linked worktrees outside the agent's/);
    assert.equal(outsideConfirmLines(many.slice(0, 21)).at(-1), "• …and 1 more linked worktree outside the agent's, the same (the cleanup's summary names each)");
    assert.equal(outsideConfirmLines(many.slice(0, 20)).length, 20, 'no count when all are named');
  });
});
