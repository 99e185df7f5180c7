import * as assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { computeStanding, computeStandings, resolveBase, worktreeHead, type StandingRequest } from '../../../../src/core/git/standing';
import { uncommittedCount, uncommittedCounts } from '../../../../src/core/git/uncommitted';
import { Sandbox, useGitSandbox, git, write, commitIn } from './gitTestUtil';

describe('git/standing: many agents of one repository at once', function () {
  this.timeout(120_000);
  let sb!: Sandbox;
  let repo: string;
  let startedAt: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'a.txt': 'one\ntwo\nthree\n', 'b.txt': 'b\n', 'bin.dat': Buffer.from([0, 1, 2]) });
    startedAt = git(repo, 'rev-parse', 'HEAD');
  });

  function agent(name: string, from = 'main'): string {
    const wt = sb.path('wt', name);
    git(repo, 'worktree', 'add', '-q', '-b', `paddock/${name}`, wt, from);
    return wt;
  }

  async function requestsFor(worktrees: readonly string[]): Promise<StandingRequest[]> {
    const base = await resolveBase(repo, 'main');
    return Promise.all(
      worktrees.map(async (wt) => ({ worktree: wt, tips: { head: (await worktreeHead(wt)).head, baseTip: base.tip, baseName: base.name, startedAt } })),
    );
  }

  /** Every agent's figures from the batch, and from the one-agent path (git's own three-dot commands). */
  async function bothWays(worktrees: readonly string[]) {
    const requests = await requestsFor(worktrees);
    const batch = await computeStandings(repo, requests, 4);
    const single = await Promise.all(requests.map((r) => computeStanding(r.worktree, r.tips)));
    return { batch, single };
  }

  /** A `git` on PATH that logs each call's subcommand (after its -c and -C options), then runs the real one. */
  function countGitCalls(): () => string[] {
    const bin = sb.path('bin');
    const log = sb.path('git-calls.log');
    const real = (process.env.PATH ?? '').split(':').map((d) => path.join(d, 'git')).find((f) => existsSync(f))!;
    const script = [
      '#!/bin/sh',
      'sub=""; skip=0',
      'for a in "$@"; do',
      '  if [ $skip = 1 ]; then skip=0; continue; fi',
      '  case "$a" in -c|-C) skip=1 ;; -*) ;; *) sub="$a"; break ;; esac',
      'done',
      `echo "$sub" >> '${log}'`,
      `exec '${real}' "$@"`,
    ];
    write(bin, 'git', script.join('\n') + '\n');
    chmodSync(path.join(bin, 'git'), 0o755);
    writeFileSync(log, '');
    process.env.PATH = `${bin}:${process.env.PATH}`;
    return () => readFileSync(log, 'utf8').split('\n').filter(Boolean);
  }

  it('gives every agent the figures git gives it alone: ahead, behind, merged, updated from base, no commits, shared heads, binary files', async () => {
    const ahead = agent('ahead');
    commitIn(ahead, 'a.txt', 'one\nTWO\nthree\nfour\n');
    commitIn(ahead, 'bin.dat', Buffer.from([0, 9, 9, 9]));
    write(ahead, 'loose.txt', 'uncommitted\n');
    const idle = agent('idle');
    const landed = agent('landed');
    commitIn(landed, 'c.txt', 'c\n');
    const twin = agent('twin', 'paddock/landed');
    const updated = agent('updated');
    commitIn(updated, 'd.txt', 'd\n');
    commitIn(repo, 'b.txt', 'main moved\n');
    git(repo, 'merge', '-q', '--no-ff', '-m', 'land', 'paddock/landed');
    git(updated, 'merge', '-q', '--no-edit', 'main');
    commitIn(repo, 'e.txt', 'e\n');
    const { batch, single } = await bothWays([ahead, idle, landed, twin, updated]);
    assert.deepEqual(
      batch.map((r) => (r.status === 'fulfilled' ? r.value : r.reason)),
      single,
    );
    // The figures themselves, so that agreement is not agreement on something wrong.
    const [a, i, l, t, u] = single;
    assert.deepEqual([a.ahead, a.behind, a.files, a.insertions, a.deletions, a.uncommittedFiles], [2, 4, 2, 2, 1, 1]);
    assert.deepEqual([i.ahead, i.behind, i.merged], [0, 4, false]);
    assert.deepEqual([l.ahead, l.merged, t.merged], [0, true, true]);
    assert.deepEqual([u.ahead, u.behind, u.files], [2, 1, 1]);
  });

  it('leaves criss-cross merge bases and unrelated histories to git, agent by agent, with the same answers', async () => {
    const cross = agent('cross');
    commitIn(cross, 'x.txt', 'x\n');
    commitIn(repo, 'y.txt', 'y\n');
    const mainBefore = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'merge', '-q', '--no-edit', 'paddock/cross');
    git(cross, 'merge', '-q', '--no-edit', mainBefore);
    commitIn(cross, 'z.txt', 'z\n');
    assert.equal(git(repo, 'merge-base', '--all', 'main', 'paddock/cross').split('\n').length, 2, 'a criss-cross');
    const plain = agent('plain');
    commitIn(plain, 'p.txt', 'p\n');
    const first = await bothWays([cross, plain]);
    assert.deepEqual(first.batch.map((r) => (r.status === 'fulfilled' ? r.value : r.reason)), first.single);

    const orphan = agent('orphan');
    git(orphan, 'checkout', '-q', '--orphan', 'unrelated');
    commitIn(orphan, 'o.txt', 'o\n');
    const second = await bothWays([plain, orphan]);
    assert.deepEqual(second.batch.map((r) => (r.status === 'fulfilled' ? r.value : r.reason)), second.single);
  });

  it('fails only the agent whose worktree is gone; the others get their figures', async () => {
    const kept = agent('kept');
    commitIn(kept, 'k.txt', 'k\n');
    const gone = agent('gone');
    const requests = await requestsFor([kept, gone]);
    rmSync(gone, { recursive: true, force: true });
    const [ok, failed] = await computeStandings(repo, requests, 4);
    assert.equal(ok.status, 'fulfilled');
    assert.equal(ok.status === 'fulfilled' && ok.value.ahead, 1);
    assert.equal(failed.status, 'rejected');
  });

  it('starts five git processes for six agents: the committed figures of all, and two that visit the worktrees for their status', async () => {
    const worktrees = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6'].map((n) => {
      const wt = agent(n);
      commitIn(wt, `${n}.txt`, `${n}\n`);
      return wt;
    });
    write(worktrees[2], 'loose.txt', 'uncommitted\n');
    write(worktrees[5], 'a6.txt', 'edited\n');
    commitIn(repo, 'b.txt', 'moved\n');
    const requests = await requestsFor(worktrees);
    const calls = countGitCalls();
    const results = await computeStandings(repo, requests, 4);
    const figures = results.map((r) => (r.status === 'fulfilled' ? [r.value.ahead, r.value.behind, r.value.files, r.value.uncommittedFiles] : r.reason));
    assert.deepEqual(figures, [[1, 1, 1, 0], [1, 1, 1, 0], [1, 1, 1, 1], [1, 1, 1, 0], [1, 1, 1, 0], [1, 1, 1, 1]]);
    assert.deepEqual(calls().sort(), ['diff-tree', 'for-each-repo', 'for-each-repo', 'merge-base', 'rev-list']);
  });

  it('counts each worktree\'s own files when statuses share a process: renamed, unmerged, staged, untracked; a worktree gone fails alone', async () => {
    const renamed = agent('renamed');
    git(renamed, 'mv', 'a.txt', 'moved.txt');
    const conflicted = agent('conflicted');
    commitIn(conflicted, 'b.txt', 'agent side\n');
    commitIn(repo, 'b.txt', 'main side\n');
    assert.throws(() => git(conflicted, 'merge', '-q', 'main'));
    const clean = agent('clean');
    const busy = agent('busy');
    write(busy, 'a.txt', 'changed\n');
    write(busy, 'new/one.txt', '1\n');
    write(busy, 'staged.txt', 's\n');
    git(busy, 'add', 'staged.txt');
    const gone = agent('gone');
    const after = agent('after');
    write(after, 'x.txt', 'x\n');
    rmSync(gone, { recursive: true, force: true });
    const all = [renamed, conflicted, clean, busy, gone, after];
    const counts = await uncommittedCounts(repo, all, 2);
    assert.deepEqual(counts.map((c) => (c.status === 'fulfilled' ? c.value : 'failed')), [1, 1, 0, 3, 'failed', 1]);
    // The same worktrees one by one agree.
    const one = await Promise.all(all.map((wt) => uncommittedCount(wt).catch(() => 'failed')));
    assert.deepEqual(one, [1, 1, 0, 3, 'failed', 1]);
  });
});
