import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { computeStanding, resolveBase, worktreeHead } from '../../../../src/core/git/standing';
import { StandingCache } from '../../../../src/core/git/standingCache';
import { figureWords, standingWords } from '../../../../src/core/git/standingWords';
import type { JobRecord } from '../../../../src/core/store/schema';
import { Sandbox, useGitSandbox, git, write, commitIn } from './gitTestUtil';

describe('git/standing: where an agent\'s work stands against its base', function () {
  this.timeout(60_000);
  let sb!: Sandbox;
  let repo: string;
  let wt: string;
  let startedAt: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'a.txt': 'one\ntwo\nthree\n', 'b.txt': 'b\n' });
    startedAt = git(repo, 'rev-parse', 'HEAD');
    wt = sb.path('wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/abc123', wt, 'main');
  });

  async function standingNow() {
    const { head } = await worktreeHead(wt);
    const base = await resolveBase(repo, 'HEAD');
    return computeStanding(wt, { head, baseTip: base.tip, baseName: base.name, startedAt });
  }

  /** A record as the cache needs it: only the fields it reads are real. */
  function job(): JobRecord {
    return {
      id: 'abc123',
      repo,
      worktree: wt,
      base: 'HEAD',
      baseSha: startedAt,
      cleanup: null,
      landing: null,
      lifecycle: { state: 'running', generation: 1, lastActivityAt: null, endedAt: null },
    } as unknown as JobRecord;
  }

  it('counts commits ahead and behind, and the committed diff against the merge base', async () => {
    commitIn(wt, 'a.txt', 'one\nTWO\nthree\nfour\n');
    commitIn(wt, 'c.txt', 'x\ny\n');
    commitIn(wt, 'bin.dat', '\0\x01\x02');
    commitIn(repo, 'b.txt', 'b changed\n');
    commitIn(repo, 'd.txt', 'd\n');
    const s = await standingNow();
    assert.equal(s.baseName, 'main');
    assert.equal(s.ahead, 3);
    assert.equal(s.behind, 2);
    // a.txt +2 −1, c.txt +2, bin.dat binary (counted as a file, no lines); main's own commits are not the agent's.
    assert.deepEqual([s.files, s.insertions, s.deletions], [3, 4, 1]);
    assert.equal(s.uncommittedFiles, 0);
    assert.equal(s.merged, false);
    assert.equal(figureWords(s), '3 commits ahead, 2 behind main · 3 files +4 −1');
  });

  it('sees uncommitted changes: modified, staged and untracked files', async () => {
    assert.equal((await standingNow()).uncommittedFiles, 0);
    write(wt, 'a.txt', 'changed\n');
    write(wt, 'new.txt', 'new\n');
    write(wt, 'staged.txt', 'staged\n');
    git(wt, 'add', 'staged.txt');
    const s = await standingNow();
    assert.equal(s.uncommittedFiles, 3);
    assert.equal(s.ahead, 0);
    assert.equal(figureWords(s), 'uncommitted changes');
  });

  it('counts an edit to a file flagged assume-unchanged or skip-worktree, which git status hides, and not a sparse file', async () => {
    git(wt, 'update-index', '--assume-unchanged', 'a.txt');
    git(wt, 'update-index', '--skip-worktree', 'b.txt');
    assert.equal((await standingNow()).uncommittedFiles, 0, 'flagged and unedited: nothing');
    write(wt, 'a.txt', 'one\ntwo\nthree\nfour\n');
    assert.equal(git(wt, 'status', '--porcelain'), '', 'git status does not show it');
    const s = await standingNow();
    assert.equal(s.uncommittedFiles, 1);
    assert.equal(figureWords(s), 'uncommitted changes');
    // An absent skip-worktree file is a sparse checkout's, not work.
    write(wt, 'a.txt', 'one\ntwo\nthree\n');
    fs.rmSync(path.join(wt, 'b.txt'));
    assert.equal((await standingNow()).uncommittedFiles, 0);
  });

  it('says merged once the agent\'s commits are reachable from the base, not before, and not for an agent without commits', async () => {
    assert.equal((await standingNow()).merged, false, 'no commits: nothing to call merged');
    commitIn(wt, 'c.txt', 'c\n');
    assert.equal((await standingNow()).merged, false);
    git(repo, 'merge', '-q', '--no-ff', '-m', 'merge agent', 'paddock/abc123');
    const s = await standingNow();
    assert.equal(s.merged, true);
    assert.equal(s.ahead, 0);
    assert.equal(figureWords(s), 'merged into main');
  });

  it('words a landing from the record before the figures', () => {
    const at = new Date().toISOString();
    const figures = { baseName: 'main', ahead: 0, behind: 0, files: 0, insertions: 0, deletions: 0, uncommittedFiles: 0, merged: true };
    assert.equal(standingWords({ landing: { kind: 'squash', into: 'main', commit: null, url: null, at } }, figures), 'merged into main');
    assert.equal(standingWords({ landing: { kind: 'apply', into: repo, commit: null, url: null, at } }, { ...figures, merged: false, uncommittedFiles: 2 }), 'applied to workspace · uncommitted changes');
    assert.equal(standingWords({ landing: { kind: 'pr', into: 'origin/paddock/x', commit: null, url: 'https://github.com/o/r/pull/12', at } }, undefined), 'pull request #12 open');
    assert.equal(standingWords({ landing: null }, undefined), '');
  });

  // Bug: a push with no gh (a compare page, or an unknown host) read "pull request open" though none existed.
  it('says no pull request was opened when the landing kept only a compare page, or no URL at all', () => {
    const at = new Date().toISOString();
    const compare = 'https://github.com/o/r/compare/main...paddock%2Fx?expand=1';
    assert.equal(standingWords({ landing: { kind: 'pr', into: 'origin/main', commit: null, url: compare, at } }, undefined), 'branch pushed, no pull request opened');
    assert.equal(standingWords({ landing: { kind: 'pr', into: 'origin/main', commit: null, url: null, at } }, undefined), 'branch pushed, no pull request opened');
    const mr = 'https://gitlab.example.com/g/r/-/merge_requests/4';
    assert.equal(standingWords({ landing: { kind: 'pr', into: 'origin/main', commit: null, url: mr, at } }, undefined), 'pull request #4 open');
  });

  // Bug 136: a landing a later run found (its own run stopped before recording it) read as any other.
  it('says a landing was stopped before it was recorded when a later run found it', () => {
    const at = new Date().toISOString();
    const figures = { baseName: 'main', ahead: 0, behind: 0, files: 0, insertions: 0, deletions: 0, uncommittedFiles: 0, merged: true };
    assert.equal(standingWords({ landing: { kind: 'squash', into: 'main', commit: null, url: null, at, foundLater: true } }, figures), 'merged into main (stopped before it was recorded; found later)');
    assert.equal(standingWords({ landing: { kind: 'pr', into: 'origin/main', commit: null, url: null, at, foundLater: true } }, undefined), 'branch pushed (stopped before it was recorded; found later)');
  });

  it('caches per (HEAD, index, base): nothing changed is a hit; a commit, a staged file or a moved base recompute', async () => {
    const cache = new StandingCache();
    const j = job();
    assert.deepEqual(await cache.refresh([j]), ['abc123']);
    assert.equal(cache.computations, 1);
    assert.deepEqual(await cache.refresh([j]), [], 'nothing changed: no recompute');
    assert.equal(cache.computations, 1);

    commitIn(wt, 'c.txt', 'c\n');
    assert.deepEqual(await cache.refresh([j]), ['abc123']);
    assert.equal(cache.computations, 2);
    assert.equal(cache.get('abc123')?.ahead, 1);

    write(wt, 'staged.txt', 's\n');
    git(wt, 'add', 'staged.txt');
    await cache.refresh([j]);
    assert.equal(cache.computations, 3, 'the index changed');
    assert.equal(cache.get('abc123')?.uncommittedFiles, 1);

    commitIn(repo, 'b.txt', 'moved\n');
    await cache.refresh([j]);
    assert.equal(cache.computations, 4, 'the base moved');
    assert.equal(cache.get('abc123')?.behind, 1);

    // An edit the index does not see waits for a forced recheck (a record change or the caller's timer).
    write(wt, 'b.txt', 'edited in place\n');
    await cache.refresh([j]);
    assert.equal(cache.computations, 4);
    await cache.refresh([j], { force: new Set(['abc123']) });
    assert.equal(cache.computations, 5);
    assert.equal(cache.get('abc123')?.uncommittedFiles, 2);

    // A record change (the agent ended) is part of the key.
    await cache.refresh([{ ...j, lifecycle: { ...j.lifecycle, state: 'completed' } } as JobRecord]);
    assert.equal(cache.computations, 6);
  });

  it('drops a cleaned agent, and keeps an error (not a throw) for a worktree that is gone', async () => {
    const cache = new StandingCache();
    await cache.refresh([job()]);
    assert.ok(cache.get('abc123'));
    assert.deepEqual(await cache.refresh([{ ...job(), cleanup: { phase: 'complete' } } as unknown as JobRecord]), ['abc123']);
    assert.equal(cache.get('abc123'), undefined);
    const gone = { ...job(), worktree: path.join(sb.dir, 'missing') } as JobRecord;
    await cache.refresh([gone]);
    assert.equal(cache.get('abc123'), undefined);
    assert.match(cache.entry('abc123')?.error ?? '', /missing|exist/);
  });
});

describe('git/standing: reading a worktree\'s HEAD without git', function () {
  this.timeout(60_000);
  let sb!: Sandbox;
  let repo: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo();
  });

  it('agrees with git for a loose ref, a packed ref, a detached HEAD and a worktree outside the repository', async () => {
    const wt = sb.path('elsewhere', 'wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/abc123', wt, 'main');
    const truth = () => ({ head: git(wt, 'rev-parse', 'HEAD'), gitDir: git(wt, 'rev-parse', '--absolute-git-dir') });
    write(wt, 'x.txt', 'x\n');
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '-m', 'x');
    assert.deepEqual(await worktreeHead(wt), truth(), 'loose ref');
    git(repo, 'pack-refs', '--all');
    assert.deepEqual(await worktreeHead(wt), truth(), 'packed ref');
    git(wt, 'checkout', '-q', '--detach');
    assert.deepEqual(await worktreeHead(wt), truth(), 'detached');
    assert.deepEqual(await worktreeHead(repo), { head: git(repo, 'rev-parse', 'HEAD'), gitDir: path.join(repo, '.git') }, 'the main worktree (a .git folder): asked of git');
  });
});
