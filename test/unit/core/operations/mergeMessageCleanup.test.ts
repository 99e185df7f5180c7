/**
 * Merge into Base cleans the message of the commit it makes as `git merge` does (bug 75): by
 * default trailing whitespace and blank lines at the ends go and runs of blank lines become one;
 * `commit.cleanup` and `--cleanup=` in `branch.<target>.mergeOptions` are followed (`strip` also
 * drops comment lines, `verbatim` keeps everything); a mode git does not know is refused naming the
 * setting, as git merge stops at it. Each message is checked against `git merge -m` in the same repository.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PaddockError } from '../../../../src/core/common/errors';
import { CoordinatorSandbox, git, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';

const IDENTITY = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
const MESSAGE = '  Land a   \n\n\n; note\n# comment\nbody  \t\n\n\n';

describe('merge: the commit message cleaned as git merge cleans it', function () {
  this.timeout(90_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  /** The message `git merge -m` commits for `branch` into the checked-out main (main put back after). */
  function gitsMessage(branch: string, message: string): string {
    const before = git(sb.repo, 'rev-parse', 'main');
    execFileSync('git', ['merge', '-q', '--no-ff', '-m', message, branch], { cwd: sb.repo, stdio: 'ignore', env: { ...process.env, ...IDENTITY } });
    const body = execFileSync('git', ['cat-file', 'commit', 'main'], { cwd: sb.repo, encoding: 'utf8' });
    git(sb.repo, 'reset', '-q', '--hard', before);
    return body.slice(body.indexOf('\n\n') + 2);
  }

  const messageOf = (commit: string): string => {
    const body = execFileSync('git', ['cat-file', 'commit', commit], { cwd: sb.repo, encoding: 'utf8' });
    return body.slice(body.indexOf('\n\n') + 2);
  };

  it('by default, with commit.cleanup=strip (core.commentChar too), with --cleanup=verbatim over it, and for a squash; an unknown mode is refused with nothing changed', async () => {
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'echo a > a.txt && git add -A && git commit -qm "agent a"'], title: 'adds a' });
    const a = await sb.waitEnded(job.id);
    writeFileSync(join(sb.repo, 'main.txt'), 'main\n');
    git(sb.repo, 'add', '-A');
    git(sb.repo, 'commit', '-qm', 'main moves');
    const moved = git(sb.repo, 'rev-parse', 'main');
    const settings: [string, string][][] = [[], [['commit.cleanup', 'strip']], [['commit.cleanup', 'strip'], ['core.commentChar', ';']], [['commit.cleanup', 'strip'], ['branch.main.mergeOptions', '--cleanup=verbatim']], [['branch.main.mergeOptions', '--cleanup=scissors']]];
    for (const set of settings) {
      for (const [key, value] of set) git(sb.repo, 'config', key, value);
      const expected = gitsMessage(a.branch!, MESSAGE);
      const merged = await c.merge(a.id, { message: MESSAGE });
      assert.equal(merged.kind, 'merge');
      assert.equal(messageOf(merged.commit), expected, JSON.stringify(set));
      git(sb.repo, 'reset', '-q', '--hard', moved);
      for (const [key] of set) git(sb.repo, 'config', '--unset', key);
    }
    // A squash's message is cleaned the same way.
    git(sb.repo, 'config', 'commit.cleanup', 'strip');
    const squashed = await c.merge(a.id, { message: MESSAGE, strategy: 'squash' });
    assert.equal(messageOf(squashed.commit), '  Land a\n\n; note\nbody\n', 'as git stripspace --strip-comments leaves it');
    git(sb.repo, 'reset', '-q', '--hard', moved);
    // Nothing left once cleaned: refused as git refuses an empty message.
    await assert.rejects(c.merge(a.id, { message: '# only a comment\n' }), (e: PaddockError) => e.code === 'EMPTY_MESSAGE');
    // A squash's, before the agent's uncommitted work is committed: nothing changed there either.
    const dirty = await sb.waitEnded((await c.start({ repo: sb.repo, command: ['sh', '-c', 'echo d > d.txt && git add -A && git commit -qm "agent d" && echo more > more.txt'], title: 'adds d' })).id);
    const dirtyTip = git(sb.repo, 'rev-parse', dirty.branch!);
    await assert.rejects(c.merge(dirty.id, { message: '# only a comment\n', strategy: 'squash', uncommitted: 'commit' }), (e: PaddockError) => e.code === 'EMPTY_MESSAGE');
    assert.equal(git(sb.repo, 'rev-parse', dirty.branch!), dirtyTip, 'its work was not committed');
    assert.equal(git(dirty.worktree!, 'status', '--porcelain'), '?? more.txt');
    git(sb.repo, 'config', 'branch.main.mergeOptions', '--cleanup=tidy');
    await assert.rejects(c.merge(a.id), (e: PaddockError) => {
      assert.equal(e.code, 'GIT_SETTING');
      assert.equal(e.message, "git's branch.main.mergeOptions --cleanup=tidy is no cleanup mode git knows, so git merge stops at it; nothing was changed (correct it, or take it out of git's config for main).");
      return true;
    });
    assert.equal(git(sb.repo, 'rev-parse', 'main'), moved);
    assert.equal((await sb.store.read(a.id)).landing?.commit, squashed.commit, 'the refused landing recorded nothing');
  });
});
