/**
 * Apply to Workspace keeps every byte (bug 101): the patch was read from git as UTF-8 text and
 * written back to `git apply` re-encoded, so a byte that is not UTF-8 in a text file's contents (a
 * Latin-1 `é`, 0xE9) became U+FFFD's three bytes — a new file arrived altered without a word, and a
 * changed one failed to apply ("patch failed"). The paths the landing reads (`diff-tree` in
 * treeChanges, `git status`, the gitlinks staged) mangled a name that is not UTF-8 the same way: a
 * submodule at such a path was staged under another name. Compared with `git cherry-pick -n`.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyCommitToWorktree } from '../../../../src/core/git';
import type { PaddockError } from '../../../../src/core/common/errors';
import { git, Sandbox, useGitSandbox } from './gitTestUtil';

const OLD = '1'.repeat(40);
const NEW = '2'.repeat(40);
const b = (...parts: (string | number[] | Buffer)[]): Buffer => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));
// Not 0xFF: git reads a .gitmodules blob byte by byte as a signed char, and 0xFF ends it (EOF).
const SUB = b('l', [0xfc], 'ib');
const OLD_NAME = b('old', [0xfd], '.txt');
const NEW_NAME = b('new', [0xfe], '.txt');

/** git's raw output, bytes as they are. */
function raw(cwd: string, args: string[], input?: Buffer): Buffer {
  return execFileSync('git', args, { cwd, input, stdio: ['pipe', 'pipe', 'pipe'] });
}

function at(root: string, name: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${root}/`), name]);
}

describe('git: apply keeps every byte of contents and names', function () {
  this.timeout(30_000);
  let sb!: Sandbox;
  useGitSandbox((fresh) => (sb = fresh));

  /** A repository with a Latin-1 file, a file and a submodule whose names are not UTF-8; an agent commit that changes all three and adds a file. */
  function scene(): { repo: string; head: string; agent: string } {
    const repo = sb.repo({ 'README.md': 'hello\n', 'latin1.txt': b('caf', [0xe9], '\n') });
    writeFileSync(join(repo, '.gitmodules'), b('[submodule "lib"]\n\tpath = ', SUB, '\n\turl = https://example.com/lib.git\n'));
    writeFileSync(at(repo, OLD_NAME), 'old\n');
    git(repo, 'add', '-A');
    raw(repo, ['update-index', '-z', '--add', '--index-info'], b(`160000 ${OLD}\t`, SUB, [0]));
    git(repo, 'commit', '-q', '-m', 'base');
    mkdirSync(at(repo, SUB));
    const head = git(repo, 'rev-parse', 'HEAD');
    const wt = sb.path('agent-wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/agent', wt, 'main');
    writeFileSync(join(wt, 'latin1.txt'), b('caf', [0xe9], '\nna', [0xef], 've\n'));
    writeFileSync(at(wt, NEW_NAME), b([0xe9], 't', [0xe9], '\n'));
    writeFileSync(at(wt, OLD_NAME), 'old\nagent\n');
    git(wt, 'add', '-A');
    raw(wt, ['update-index', '-z', '--index-info'], b(`160000 ${NEW}\t`, SUB, [0]));
    git(wt, 'commit', '-q', '-m', 'agent');
    return { repo, head, agent: git(wt, 'rev-parse', 'HEAD') };
  }

  it('a Latin-1 file changed and added, a file and a submodule at names that are not UTF-8: as git cherry-pick -n leaves them', async () => {
    const { repo, head, agent } = scene();
    const expected = sb.path('expected');
    git(repo, 'worktree', 'add', '-q', '--detach', expected, head);
    git(expected, 'cherry-pick', '-n', agent);

    const files = await applyCommitToWorktree(repo, agent, 'Agent work');
    assert.equal(files.length, 4);
    for (const name of [Buffer.from('latin1.txt'), NEW_NAME, OLD_NAME]) {
      assert.deepEqual(readFileSync(at(repo, name)), readFileSync(at(expected, name)), `${name.toString('latin1')} as the agent wrote it`);
    }
    const gitlink = (cwd: string) => raw(cwd, ['ls-files', '-s', '-z']).toString('latin1').split('\0').filter((e) => e.startsWith('160000'));
    assert.deepEqual(gitlink(repo), gitlink(expected), 'the submodule moved, at its own name');
    assert.deepEqual(gitlink(repo), [`160000 ${NEW} 0\t${SUB.toString('latin1')}`]);
  });

  it("the person's own change at a name that is not UTF-8 is never overwritten", async () => {
    const { repo, agent } = scene();
    writeFileSync(at(repo, OLD_NAME), 'mine\n');
    await assert.rejects(applyCommitToWorktree(repo, agent, 'Agent work'), (e: PaddockError) => e.code === 'LOCAL_CHANGES');
    assert.equal(readFileSync(at(repo, OLD_NAME), 'utf8'), 'mine\n');
  });
});
