/**
 * The index state the evidence keeps (intent-to-add entries, assume-unchanged and
 * skip-worktree flags), read from the index file without git, against what git
 * itself says (`ls-files --debug`), in every index git writes: versions 2, 3 and 4
 * (prefix-compressed names), SHA-1 and SHA-256; a split index is read by git.
 */
import * as assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { indexFlagListsOf } from '../../../../src/core/git/indexFlags';
import { captureIndexFlags } from '../../../../src/core/git/indexFlagState';
import { git, Sandbox, useGitSandbox, write } from './gitTestUtil';

describe('git: the index state kept as evidence', function () {
  this.timeout(30_000);
  let sb!: Sandbox;
  useGitSandbox((fresh) => (sb = fresh));

  function files(): Record<string, string> {
    const out: Record<string, string> = {};
    for (let i = 0; i < 30; i++) out[`${i % 3 ? 'dir/sub/' : ''}${'n'.repeat(1 + (i % 13))}-${i}.txt`] = `${i}\n`;
    out['odd name é.txt'] = 'odd\n';
    return out;
  }

  /** git's own answer: each path's in-memory flags from `ls-files --debug` (CE_VALID, CE_INTENT_TO_ADD, CE_SKIP_WORKTREE). */
  function gitSays(repo: string): { intentToAdd: string[]; assumeUnchanged: string[]; skipWorktree: string[] } {
    const lines = git(repo, '-c', 'core.quotePath=false', 'ls-files', '--debug').split('\n');
    const said = { intentToAdd: [] as string[], assumeUnchanged: [] as string[], skipWorktree: [] as string[] };
    for (let i = 0; i < lines.length; i += 6) {
      const flags = parseInt(/flags: ([0-9a-f]+)/.exec(lines[i + 5])![1], 16);
      if (flags & (1 << 29)) said.intentToAdd.push(lines[i]);
      if (flags & 0x8000) said.assumeUnchanged.push(lines[i]);
      if (flags & (1 << 30)) said.skipWorktree.push(lines[i]);
    }
    return said;
  }

  function flagSome(repo: string): void {
    git(repo, 'update-index', '--assume-unchanged', 'dir/sub/nn-1.txt', 'odd name é.txt');
    git(repo, 'update-index', '--skip-worktree', 'dir/sub/nnn-2.txt');
    write(repo, 'dir/sub/planned.txt', 'planned\n');
    write(repo, 'planned é.txt', 'planned\n');
    git(repo, 'add', '-N', 'dir/sub/planned.txt', 'planned é.txt');
  }

  const indexOf = (repo: string) => readFileSync(path.join(repo, '.git', 'index'));

  for (const version of ['2', '3', '4']) {
    it(`index version ${version}: the file's flags are git's`, () => {
      const repo = sb.repo(files());
      git(repo, 'update-index', '--index-version', version);
      assert.deepEqual(indexFlagListsOf(indexOf(repo)), { intentToAdd: [], assumeUnchanged: [], skipWorktree: [] });
      flagSome(repo);
      const said = gitSays(repo);
      assert.equal(said.intentToAdd.length + said.assumeUnchanged.length + said.skipWorktree.length, 5, 'the fixture flags five paths');
      assert.deepEqual(indexFlagListsOf(indexOf(repo)), said);
    });
  }

  it('a SHA-256 repository', () => {
    const repo = sb.path('sha256');
    git(sb.dir, 'init', '-q', '--object-format=sha256', '-b', 'main', repo);
    for (const [rel, content] of Object.entries(files())) write(repo, rel, content);
    git(repo, 'add', '-A');
    git(repo, '-c', 'user.name=T', '-c', 'user.email=t@e.invalid', 'commit', '-q', '-m', 'base');
    flagSome(repo);
    assert.deepEqual(indexFlagListsOf(indexOf(repo)), gitSays(repo));
  });

  it('a split index is read by git; a skip-worktree file not on disk is recorded as left out of the checkout', async () => {
    const repo = sb.repo(files());
    git(repo, 'update-index', '--split-index');
    flagSome(repo);
    rmSync(path.join(repo, 'dir/sub/nnn-2.txt'));
    assert.equal(indexFlagListsOf(indexOf(repo)), undefined, 'the file alone does not say');
    const said = gitSays(repo);
    const onDisk = (rel: string) => rel !== 'dir/sub/nnn-2.txt';
    assert.deepEqual(await captureIndexFlags(repo, path.join(repo, '.git', 'index'), onDisk), { ...said, notCheckedOut: ['dir/sub/nnn-2.txt'] });
  });

  it('no flag, or no index: nothing is recorded', async () => {
    const repo = sb.repo(files());
    assert.equal(await captureIndexFlags(repo, path.join(repo, '.git', 'index'), () => true), null);
    assert.equal(await captureIndexFlags(repo, path.join(repo, '.git', 'no-index'), () => true), null);
  });
});
