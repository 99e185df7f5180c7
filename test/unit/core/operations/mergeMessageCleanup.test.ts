/**
 * Merge into Base cleans the message of the commit it makes as git does (bug 75). A merge commit
 * as `git merge -m` cleans it: by default trailing whitespace and blank lines at the ends go and
 * runs of blank lines become one; `commit.cleanup`, then `--cleanup=` in
 * `branch.<target>.mergeOptions` (`strip` also drops comment lines, `verbatim` keeps everything,
 * even a missing last newline). A squash as `git merge --squash && git commit -m` does: git commit
 * reads `commit.cleanup` alone, and with `core.commentChar=auto` picks a comment character no line
 * of the message begins with. Each message is checked against git's in the same repository; a
 * mode git does not know, and a comment character git cannot read, are refused naming the setting.
 */
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PaddockError } from '../../../../src/core/common/errors';
import { CoordinatorSandbox, git, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';

const IDENTITY = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
const MESSAGES = [
  '  Land a   \n\n\n; note\n# comment\nbody  \t\n\n\n',
  // A line beginning with A: core.commentChar=AUTO is auto to git, not `A`.
  'Add the feature\n\nAll tests pass.\nsee #12\n',
  'no newline',
  'title\n\n\n',
  '#starts with comment\nreal\n',
];
/** Settings, each set in turn (values of one key added in order). */
const SETTINGS: [string, string][][] = [
  [],
  [['commit.cleanup', 'strip']],
  [['commit.cleanup', 'strip'], ['core.commentChar', ';']],
  [['commit.cleanup', 'strip'], ['core.commentChar', 'AUTO']],
  [['commit.cleanup', 'strip'], ['core.commentChar', ';'], ['core.commentChar', 'auto']],
  [['commit.cleanup', 'strip'], ['branch.main.mergeOptions', '--cleanup=verbatim']],
  [['commit.cleanup', 'verbatim'], ['branch.main.mergeOptions', '--cleanup=strip']],
  [['branch.main.mergeOptions', '--cleanup=verbatim']],
  [['branch.main.mergeOptions', '--cleanup=scissors']],
  [['commit.cleanup', 'verbatim']],
  [['commit.cleanup', 'verbatim'], ['merge.log', 'true']],
];

describe('merge: the commit message cleaned as git cleans it', function () {
  this.timeout(300_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  const messageOf = (commit: string): string => {
    const body = execFileSync('git', ['cat-file', 'commit', commit], { cwd: sb.repo, encoding: 'utf8' });
    return body.slice(body.indexOf('\n\n') + 2);
  };

  /** The message git commits for `branch` into the checked-out main, or null when git refuses it (main put back after). */
  function gitsMessage(branch: string, message: string, strategy: 'merge' | 'squash'): string | null {
    const before = git(sb.repo, 'rev-parse', 'main');
    const env = { ...process.env, ...IDENTITY };
    const made =
      strategy === 'merge'
        ? spawnSync('git', ['merge', '-q', '--no-ff', '-m', message, branch], { cwd: sb.repo, env }).status === 0
        : spawnSync('git', ['merge', '-q', '--squash', branch], { cwd: sb.repo, env }).status === 0 && spawnSync('git', ['commit', '-q', '-m', message], { cwd: sb.repo, env }).status === 0;
    const body = made ? messageOf('main') : null;
    git(sb.repo, 'reset', '-q', '--hard', before);
    return body;
  }

  it('a merge as git merge -m, a squash as git merge --squash && git commit -m, under each setting; an unknown mode or comment character refused with nothing changed', async () => {
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'echo a > a.txt && git add -A && git commit -qm "agent a"'], title: 'adds a' });
    const a = await sb.waitEnded(job.id);
    writeFileSync(join(sb.repo, 'main.txt'), 'main\n');
    git(sb.repo, 'add', '-A');
    git(sb.repo, 'commit', '-qm', 'main moves');
    const moved = git(sb.repo, 'rev-parse', 'main');
    const differences: string[] = [];
    for (const set of SETTINGS) {
      for (const [key, value] of set) git(sb.repo, 'config', '--add', key, value);
      for (const message of MESSAGES) {
        for (const strategy of ['merge', 'squash'] as const) {
          const expected = gitsMessage(a.branch!, message, strategy);
          const got = await c.merge(a.id, { message, strategy }).then(
            (landed) => messageOf(landed.commit),
            (e: PaddockError) => `refused: ${e.message}`,
          );
          git(sb.repo, 'reset', '-q', '--hard', moved);
          const same = expected === null ? got.startsWith('refused: ') : got === expected;
          if (!same) differences.push(`${JSON.stringify(set)} ${strategy} ${JSON.stringify(message)}: git ${JSON.stringify(expected)}, Paddock ${JSON.stringify(got)}`);
        }
      }
      for (const [key] of set) spawnSync('git', ['config', '--unset-all', key], { cwd: sb.repo });
    }
    assert.deepEqual(differences, []);
    // Nothing left once cleaned: refused as git refuses an empty message.
    git(sb.repo, 'config', 'commit.cleanup', 'strip');
    await assert.rejects(c.merge(a.id, { message: '# only a comment\n' }), (e: PaddockError) => e.code === 'EMPTY_MESSAGE');
    // A squash's, before the agent's uncommitted work is committed: nothing changed there either.
    const dirty = await sb.waitEnded((await c.start({ repo: sb.repo, command: ['sh', '-c', 'echo d > d.txt && git add -A && git commit -qm "agent d" && echo more > more.txt'], title: 'adds d' })).id);
    const dirtyTip = git(sb.repo, 'rev-parse', dirty.branch!);
    await assert.rejects(c.merge(dirty.id, { message: '# only a comment\n', strategy: 'squash', uncommitted: 'commit' }), (e: PaddockError) => e.code === 'EMPTY_MESSAGE');
    assert.equal(git(sb.repo, 'rev-parse', dirty.branch!), dirtyTip, 'its work was not committed');
    assert.equal(git(dirty.worktree!, 'status', '--porcelain'), '?? more.txt');
    git(sb.repo, 'config', '--unset', 'commit.cleanup');
    const recorded = (await sb.store.read(a.id)).landing?.commit;
    git(sb.repo, 'config', 'branch.main.mergeOptions', '--cleanup=tidy');
    await assert.rejects(c.merge(a.id), (e: PaddockError) => {
      assert.equal(e.code, 'GIT_SETTING');
      assert.equal(e.message, "git's branch.main.mergeOptions --cleanup=tidy is no cleanup mode git knows, so git merge stops at it; nothing was changed (correct it, or take it out of git's config for main).");
      return true;
    });
    git(sb.repo, 'config', '--unset', 'branch.main.mergeOptions');
    // More than one byte: git 2.39 stops at it ("core.commentChar should only be one character"), whatever it is asked.
    for (const value of ['ab', 'é', '😀']) {
      git(sb.repo, 'config', 'core.commentChar', value);
      assert.notEqual(spawnSync('git', ['status'], { cwd: sb.repo }).status, 0, `git stops at ${value}`);
      for (const strategy of ['merge', 'squash'] as const) {
        await assert.rejects(c.merge(a.id, { strategy }), (e: PaddockError) => {
          assert.equal(e.code, 'GIT_SETTING');
          assert.equal(e.message, `git's core.commentChar=${value} is not a single character (one byte) or auto, so every git command stops at it; nothing was changed (correct it, or take it out of git's config for main).`);
          return true;
        });
      }
    }
    git(sb.repo, 'config', '--unset', 'core.commentChar');
    assert.equal(git(sb.repo, 'rev-parse', 'main'), moved);
    assert.equal((await sb.store.read(a.id)).landing?.commit, recorded, 'the refused landings recorded nothing');
  });

  // Bug 96: a merge's message that git's cleanup leaves empty was refused only when the commit was
  // made — after a running agent was stopped (--stop-first) and its uncommitted work committed.
  it("a merge message git's cleanup leaves empty is refused before a running agent is stopped or its work committed; a fast-forward commits none", async () => {
    const c = sb.coordinator();
    git(sb.repo, 'config', 'commit.cleanup', 'strip');
    const running = await c.start({ repo: sb.repo, command: ['sh', '-c', "echo r > r.txt && git add -A && git commit -qm 'agent r' && sleep 30"], title: 'runs' });
    const live = await sb.waitFor(running.id, (j) => j.lifecycle.state === 'running' && git(sb.repo, 'log', '-1', '--format=%s', j.branch!) === 'agent r');
    const side = git(sb.repo, 'rev-parse', 'main');
    git(sb.repo, 'branch', 'side', side);
    writeFileSync(join(sb.repo, 'main.txt'), 'main\n');
    git(sb.repo, 'add', '-A');
    git(sb.repo, 'commit', '-qm', 'main moves');
    const moved = git(sb.repo, 'rev-parse', 'main');
    await assert.rejects(c.merge(live.id, { message: '# only a comment\n', running: 'stop' }), (e: PaddockError) => e.code === 'EMPTY_MESSAGE');
    assert.equal((await sb.store.read(live.id)).lifecycle.state, 'running', 'the agent was not stopped');
    // merge.ff=false: a merge commit even where a fast-forward would do, so its message is needed.
    git(sb.repo, 'config', 'branch.side.mergeOptions', '--no-ff');
    await assert.rejects(c.merge(live.id, { message: '#\n', running: 'stop', into: 'side' }), (e: PaddockError) => e.code === 'EMPTY_MESSAGE');
    assert.equal((await sb.store.read(live.id)).lifecycle.state, 'running', 'the agent was not stopped');
    git(sb.repo, 'config', '--unset', 'branch.side.mergeOptions');
    // An agent with no commit, only uncommitted work: committing it would make the merge need the message.
    const dirty = await sb.waitEnded((await c.start({ repo: sb.repo, command: ['sh', '-c', 'echo d > d.txt'], title: 'leaves d' })).id);
    const dirtyTip = git(sb.repo, 'rev-parse', dirty.branch!);
    git(sb.repo, 'commit', '-q', '--allow-empty', '-m', 'main moves again');
    const movedAgain = git(sb.repo, 'rev-parse', 'main');
    await assert.rejects(c.merge(dirty.id, { message: '# only a comment\n', uncommitted: 'commit' }), (e: PaddockError) => e.code === 'EMPTY_MESSAGE');
    assert.equal(git(sb.repo, 'rev-parse', dirty.branch!), dirtyTip, 'its work was not committed');
    assert.equal(git(dirty.worktree!, 'status', '--porcelain'), '?? d.txt');
    assert.equal(git(sb.repo, 'rev-parse', 'main'), movedAgain);
    assert.notEqual(movedAgain, moved);
    // A fast-forward commits no message, as git merge -m takes it then: landed once the agent is stopped.
    const landed = await c.merge(live.id, { message: '# only a comment\n', running: 'stop', into: 'side' });
    assert.equal(landed.kind, 'ff');
    assert.equal(git(sb.repo, 'rev-parse', 'side'), git(sb.repo, 'rev-parse', live.branch!));
  });

  // Bug 96, found by review: the early check of the message came before the nothing-to-land one, and
  // took --commit-uncommitted for work to commit when there was none.
  it('an agent with nothing to land is refused for that, not for its message: a squash, and a merge told to commit work it does not have', async () => {
    const c = sb.coordinator();
    git(sb.repo, 'config', 'commit.cleanup', 'strip');
    const idle = await sb.waitEnded((await c.start({ repo: sb.repo, command: ['true'], title: 'does nothing' })).id);
    const main = git(sb.repo, 'rev-parse', 'main');
    for (const req of [{ strategy: 'squash' as const }, { strategy: 'squash' as const, uncommitted: 'commit' as const }, { uncommitted: 'commit' as const }]) {
      await assert.rejects(c.merge(idle.id, { message: '# only a comment\n', ...req }), (e: PaddockError) => {
        assert.equal(e.code, 'NOTHING_TO_LAND', `${JSON.stringify(req)}: ${e.message}`);
        return true;
      });
    }
    assert.equal(git(sb.repo, 'rev-parse', 'main'), main);
  });
});
