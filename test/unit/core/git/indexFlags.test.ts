/**
 * The index file read for flagged entries without git, against what git
 * itself says (`ls-files -v`), in every index git 2.39 writes: versions 2, 3
 * and 4, SHA-1 and SHA-256 repositories; a split index and a damaged file are
 * left to git.
 */
import * as assert from 'node:assert/strict';
import { readFileSync, truncateSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { indexHasFlaggedEntries } from '../../../../src/core/git/indexFlags';
import { git, Sandbox, useGitSandbox, write } from './gitTestUtil';

describe('git: flagged entries read from the index file', function () {
  this.timeout(30_000);
  let sb!: Sandbox;
  useGitSandbox((fresh) => (sb = fresh));

  /** What git says: any entry tagged assume-unchanged (lower case) or skip-worktree (S). */
  const gitSays = (repo: string) => git(repo, 'ls-files', '-v').split('\n').some((l) => /^[a-zS]/.test(l));

  function files(count: number): Record<string, string> {
    const out: Record<string, string> = {};
    // Names of many lengths (each padding case), some nested, one with a space and non-ASCII bytes.
    for (let i = 0; i < count; i++) out[`${i % 3 ? 'dir/' : ''}${'n'.repeat(1 + (i % 17))}-${i}.txt`] = `${i}\n`;
    out['odd name é.txt'] = 'odd\n';
    return out;
  }

  async function agrees(repo: string, expected: boolean): Promise<void> {
    assert.equal(gitSays(repo), expected, 'the fixture is what the case says');
    assert.equal(await indexHasFlaggedEntries(repo), expected);
  }

  for (const version of ['2', '3', '4']) {
    it(`index version ${version}: none, assume-unchanged, skip-worktree, cleared again`, async () => {
      const repo = sb.repo(files(40));
      git(repo, 'update-index', '--index-version', version);
      await agrees(repo, false);
      git(repo, 'update-index', '--assume-unchanged', 'dir/nn-1.txt');
      await agrees(repo, true);
      git(repo, 'update-index', '--no-assume-unchanged', 'dir/nn-1.txt');
      await agrees(repo, false);
      git(repo, 'update-index', '--skip-worktree', 'odd name é.txt');
      await agrees(repo, true);
      git(repo, 'update-index', '--no-skip-worktree', 'odd name é.txt');
      await agrees(repo, false);
    });
  }

  it('a SHA-256 repository, and a worktree of another repository', async () => {
    const repo = sb.path('sha256');
    git(sb.dir, 'init', '-q', '--object-format=sha256', '-b', 'main', repo);
    for (const [rel, content] of Object.entries(files(30))) write(repo, rel, content);
    git(repo, 'add', '-A');
    git(repo, '-c', 'user.name=T', '-c', 'user.email=t@e.invalid', 'commit', '-q', '-m', 'base');
    await agrees(repo, false);
    git(repo, 'update-index', '--skip-worktree', 'n-0.txt');
    await agrees(repo, true);

    const main = sb.repo(files(10), 'main-repo');
    const wt = sb.path('wt');
    git(main, 'worktree', 'add', '-q', '-b', 'agent', wt);
    await agrees(wt, false);
    git(wt, 'update-index', '--assume-unchanged', 'n-0.txt');
    await agrees(wt, true);
    await agrees(main, false);
  });

  it('a split index, a damaged index or none at all: git is asked (undefined)', async () => {
    const repo = sb.repo(files(20));
    git(repo, 'update-index', '--split-index');
    write(repo, 'later.txt', 'x\n');
    git(repo, 'add', 'later.txt');
    assert.equal(gitSays(repo), false);
    assert.equal(await indexHasFlaggedEntries(repo), undefined);

    const other = sb.repo(files(20), 'damaged');
    const index = path.join(other, '.git', 'index');
    truncateSync(index, readFileSync(index).length - 200);
    assert.equal(await indexHasFlaggedEntries(other), undefined);
    writeFileSync(index, 'not an index');
    assert.equal(await indexHasFlaggedEntries(other), undefined);

    const empty = sb.path('empty');
    git(sb.dir, 'init', '-q', empty);
    assert.equal(await indexHasFlaggedEntries(empty), undefined, 'no index file yet');
  });
});
