/**
 * A file at a commit (the left side of an agent's diffs): what names the commit is only ever an
 * object name to git, never an option.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { fileAtRef } from '../../../../src/core/git/fileAtRef';
import { git, Sandbox } from './gitTestUtil';

describe('git: fileAtRef', () => {
  let sb!: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.dispose());

  it('gives the text of a file at a commit, and nothing for a file that was not there', async () => {
    const repo = sb.repo({ 'README.md': 'hello\n' });
    const head = git(repo, 'rev-parse', 'HEAD');
    assert.equal(await fileAtRef(repo, head, 'README.md'), 'hello\n');
    assert.equal(await fileAtRef(repo, head, 'missing.txt'), '');
  });

  it('takes a ref that looks like an option as a name that does not exist: git writes no file', async () => {
    const repo = sb.repo({ 'README.md': 'hello\n' });
    const out = sb.path('written');
    assert.equal(await fileAtRef(repo, `--output=${out}`, 'README.md'), '');
    assert.equal(existsSync(`${out}:README.md`), false, 'git show took the ref as --output and wrote a file');
    assert.deepEqual(readdirSync(path.dirname(out)).filter((n) => n.startsWith('written')), []);
  });
});
