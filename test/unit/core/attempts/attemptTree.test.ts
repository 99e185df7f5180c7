/** What an attempt added, read from a real repository's patch: file names exactly as git lists them. */
import * as assert from 'node:assert/strict';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { addedLines, fileChanges, worktreeTree } from '../../../../src/core/attempts/attemptTree';
import { guardWorktree } from '../../../../src/core/check/worktreeGuard';
import { decodeName } from '../../../../src/core/git/pathBytes';
import { changedFiles, worktreeFingerprint } from '../../../../src/core/git/status';
import { StandingCache } from '../../../../src/core/git/standingCache';
import type { JobRecord } from '../../../../src/core/store/schema';
import { git, Sandbox, useGitSandbox, write } from '../git/gitTestUtil';

describe('attempts: added lines per file', function () {
  this.timeout(30_000);
  let sb!: Sandbox;
  useGitSandbox((fresh) => (sb = fresh));

  // Bug: a name git quotes (octal escapes for é) was read with JSON.parse, which threw: Compare
  // Attempts showed the whole attempt as "changes unavailable"; a name with a space kept git's TAB.
  it('names files with accents, spaces, quotes, backslashes, tabs and non-UTF-8 bytes as git diff -z does', async () => {
    const repo = sb.repo();
    const base = git(repo, 'rev-parse', 'HEAD');
    const names = ['café.md', 'a b.txt', 'say "hi".txt', 'back\\slash', 'tab\there', '日本.txt'];
    for (const name of names) write(repo, name, `line of ${name}\n`);
    const raw = Buffer.concat([Buffer.from('raw-'), Buffer.from([0xff, 0xfe]), Buffer.from('.txt')]);
    writeFileSync(Buffer.concat([Buffer.from(repo + path.sep), raw]), 'raw line\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'names');
    const head = git(repo, 'rev-parse', 'HEAD');
    const added = await addedLines(repo, base, head);
    for (const name of names) assert.deepEqual(added.get(name), [`line of ${name}`], name);
    assert.deepEqual(added.get(decodeName(raw)), ['raw line']);
    assert.equal(added.size, names.length + 1);
    const listed = (await fileChanges(repo, base, head)).map((f) => f.path).filter((p) => !p.startsWith('raw-'));
    assert.deepEqual([...added.keys()].filter((p) => !p.startsWith('raw-')).sort(), listed.sort());
  });

  // Bug 81: an added line that itself begins "++ " shows as "+++ ..." in the patch and was read as
  // the next file's header: the lines after it were filed under a made-up file name.
  it('reads an added line beginning with "++ " or "diff --git" as a line, not as a file header', async () => {
    const repo = sb.repo();
    const base = git(repo, 'rev-parse', 'HEAD');
    write(repo, 'notes.md', 'first\n++ counter\n+++ b/other.txt\ndiff --git a/x b/x\nlast\n');
    write(repo, 'second.txt', 'second file\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'plus lines');
    const added = await addedLines(repo, base, git(repo, 'rev-parse', 'HEAD'));
    assert.deepEqual([...added.keys()].sort(), ['notes.md', 'second.txt']);
    assert.deepEqual(added.get('notes.md'), ['first', '++ counter', '+++ b/other.txt', 'diff --git a/x b/x', 'last']);
    assert.deepEqual(added.get('second.txt'), ['second file']);
  });

  // Bug 157: in a sparse checkout git's `add -A` refused, for the whole add, a file written outside the
  // patterns: Compare Attempts had no tree, and the check's guard could not read the worktree.
  it('reads a sparse checkout with a file written outside its patterns, and keeps what the patterns leave out', async () => {
    const repo = sb.repo({ 'kept/in.txt': 'in\n', 'left/out.txt': 'out\n' });
    git(repo, 'sparse-checkout', 'set', '--cone', 'kept');
    write(repo, 'left/new.txt', 'written outside the patterns\n');
    const { tree } = await worktreeTree(repo, repo);
    assert.equal(git(repo, 'show', `${tree}:left/new.txt`), 'written outside the patterns');
    assert.equal(git(repo, 'show', `${tree}:left/out.txt`), 'out');
  });

  // Bug 138's review: the stall watch stopped after a minute the read of a worktree whose clean filter waits quietly on a slow service.
  it('a clean filter that waits quietly for over a minute (a slow service) is not judged stalled: the worktree is read', async function () {
    this.timeout(200_000);
    const repo = sb.repo({ '.gitattributes': '*.bin filter=slow\n' });
    // No CPU, nothing running, for 62 s: past GIT_STALL_MS (60 s). Before: stopped at 60 s, Compare Attempts had no tree.
    git(repo, 'config', 'filter.slow.clean', 'sleep 62; cat');
    write(repo, 'data.bin', 'data\n');
    const { tree } = await worktreeTree(repo, repo);
    assert.equal(git(repo, 'show', `${tree}:data.bin`), 'data');
  });

  // Bug 156: git run in a worktree whose link the agent cut found no repository, the agent's own, or
  // that of a checkout the worktree lies in: Compare Attempts, the read after a check, the Agents
  // tree's changed files and Open Changes said *bad object*; a cleanup's fingerprint read another repository.
  for (const [cut, outer] of [['rm .git', false], ['rm .git', true], ['a .git leading nowhere', true], ['git init', false], ['git init', true]] as const) {
    it(`reads the agent's files of a worktree whose link was cut (${cut}${outer ? ', inside another checkout' : ''}) through the repository's record`, async () => {
      const repo = sb.repo();
      if (outer) {
        git(sb.dir, 'init', '-q');
        write(sb.dir, 'outer.txt', 'outer\n');
        git(sb.dir, 'add', 'outer.txt');
        git(sb.dir, 'commit', '-q', '-m', 'outer');
      }
      const base = git(repo, 'rev-parse', 'HEAD');
      const wt = path.join(sb.dir, 'repo.worktrees', 'x');
      git(repo, 'worktree', 'add', '-q', '-b', 'paddock/x', wt);
      write(wt, 'done.txt', 'committed\n');
      git(wt, 'add', 'done.txt');
      git(wt, 'commit', '-q', '-m', 'agent');
      const head = git(wt, 'rev-parse', 'HEAD');
      write(wt, 'mine.txt', 'mine\n');
      rmSync(path.join(wt, '.git'));
      if (cut === 'a .git leading nowhere') write(wt, '.git', 'gitdir: /nowhere/at/all\n');
      if (cut === 'git init') {
        git(wt, 'init', '-q');
        git(wt, 'add', '-A');
        git(wt, 'commit', '-q', '-m', 'own');
      }
      const read = await worktreeTree(repo, wt);
      assert.equal(read.head, head, "the agent's branch, not another repository's HEAD");
      assert.deepEqual((await fileChanges(repo, base, read.tree)).map((f) => f.path), ['done.txt', 'mine.txt']);
      const guard = await guardWorktree(repo, wt, 'x');
      assert.equal(git(repo, 'show', `${guard.commit}:mine.txt`), 'mine');
      const changed = (await changedFiles(repo, wt, base)).map((f) => `${f.status} ${f.path}`);
      assert.deepEqual(changed, ['A done.txt', '? mine.txt'], "the Agents tree's files of the agent's branch");
      // The Agents tree row's figures, refreshed beside a linked sibling (the batch the cut one stays out of).
      const sibling = path.join(sb.dir, 'repo.worktrees', 'y');
      git(repo, 'worktree', 'add', '-q', '-b', 'paddock/y', sibling);
      write(sibling, 'other.txt', 'other\n');
      const standings = new StandingCache();
      await standings.refresh([agentRow('x', repo, wt, base), agentRow('y', repo, sibling, base)]);
      const row = standings.entry('x');
      assert.equal(row?.error, undefined, 'the row has figures');
      assert.deepEqual(row?.standing && { ...row.standing, baseName: '' }, { baseName: '', ahead: 1, behind: 0, files: 1, insertions: 1, deletions: 0, uncommittedFiles: 1, merged: false });
      assert.equal(standings.get('y')?.uncommittedFiles, 1, 'the linked sibling read as before');
      const cutPrint = await worktreeFingerprint(repo, wt);
      assert.equal(existsSync(path.join(wt, '.git')), cut !== 'rm .git', 'nothing written to the worktree');
      // Linked again as git made it: the same worktree, so the same fingerprint.
      rmSync(path.join(wt, '.git'), { recursive: true, force: true });
      writeFileSync(path.join(wt, '.git'), `gitdir: ${path.join(repo, '.git', 'worktrees', 'x')}\n`);
      assert.equal(cutPrint, await worktreeFingerprint(repo, wt), "the cleanup's fingerprint of the worktree, not of another repository");
    });
  }

  /** An agent's record as the Agents tree refreshes it: running, with a worktree and a base. */
  function agentRow(id: string, repo: string, worktree: string, baseSha: string): JobRecord {
    const lifecycle = { state: 'running', generation: 1, lastActivityAt: null, endedAt: null };
    return { id, repo, worktree, base: 'HEAD', baseSha, cleanup: null, landing: null, lifecycle } as unknown as JobRecord;
  }
});
