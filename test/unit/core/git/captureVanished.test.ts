/**
 * Entries that change under a capture (bug 140). A file the walk listed and that is gone when the
 * capture reads it was taken for one that "cannot be read": the cleanup stopped for the person's
 * consent to lose a file that was not there (and with it, recorded it lost). Now such a capture fails
 * plainly, to be tried again. A sibling: a symlink with no target in a submodule's git dir was taken
 * for a file that cannot be read, and stopped every cleanup for consent; the link itself is kept.
 * The file is made to go away mid-capture by a real clean filter that the capture's `add` runs.
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import * as path from 'node:path';
import { PaddockError } from '../../../../src/core/common/errors';
import { captureEvidence, CONSENT_NEEDED } from '../../../../src/core/git/evidence';
import { Sandbox, git, useGitSandbox, write } from './gitTestUtil';

describe('git: entries that change under the capture (bug 140)', function () {
  this.timeout(60_000);
  let sb!: Sandbox;
  let repo: string;
  let wt: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'README.md': 'hello\n', '.gitignore': '*.log\n', '.gitattributes': '*.h filter=rm\n' });
    wt = sb.agentWorktree(repo);
  });
  const capture = () =>
    captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1' });

  it('an ignored file that goes away mid-capture: a plain failure, no consent asked; the next attempt keeps the rest', async () => {
    // The add runs this on a.h, after the walk listed build.log and before the archive reads it.
    git(repo, 'config', 'filter.rm.clean', `rm -f '${path.join(wt, 'build.log')}'; cat`);
    write(wt, 'a.h', 'one\n');
    write(wt, 'build.log', 'output\n');
    write(wt, 'kept.log', 'kept\n');
    const err = await capture().then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(err instanceof PaddockError, String(err));
    assert.notEqual(err.code, CONSENT_NEEDED, err.message);
    assert.match(err.message, /the worktree changed while it was captured: build\.log in .* went away since it was listed/);
    const ev = await capture();
    assert.equal(ev.summary.lostCount, 0);
    assert.equal(ev.summary.archived.files, 1, 'kept.log');
    assert.equal(git(repo, 'show', `${ev.snapshotSha}:a.h`), 'one');
  });

  it('an ignored file whose folder is replaced by a file mid-capture (ENOTDIR) is as gone: a plain failure, no consent asked', async () => {
    // The add runs this on a.h, after the walk listed logs/build.log: the folder logs becomes a file.
    const logs = path.join(wt, 'logs');
    git(repo, 'config', 'filter.rm.clean', `rm -rf '${logs}'; echo > '${logs}'; cat`);
    write(wt, 'a.h', 'one\n');
    write(wt, 'logs/build.log', 'output\n');
    const err = await capture().then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(err instanceof PaddockError, String(err));
    // Before: CONSENT_NEEDED, "logs/build.log (cannot be read)".
    assert.notEqual(err.code, CONSENT_NEEDED, err.message);
    assert.match(err.message, /the worktree changed while it was captured: logs\/build\.log in .* went away since it was listed/);
  });

  it('a symlink with no target in a submodule\'s git dir is kept as a link, with no consent asked', async () => {
    const lib = sb.repo({ 'lib.txt': 'lib\n' }, 'lib');
    git(wt, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', lib, 'vendor/lib');
    const modules = path.join(repo, '.git', 'worktrees', 'wt', 'modules', 'vendor', 'lib');
    assert.ok(existsSync(modules), 'the submodule\'s git dir lives in the worktree\'s private git dir');
    mkdirSync(path.join(modules, 'hooks'), { recursive: true });
    symlinkSync('../../../../tools/pre-commit', path.join(modules, 'hooks', 'pre-commit'));
    const ev = await capture();
    assert.equal(ev.summary.lostCount, 0, JSON.stringify(ev.summary.lost));
  });
});
