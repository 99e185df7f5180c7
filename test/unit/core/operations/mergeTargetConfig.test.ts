/**
 * Merge into Base reads git's merge settings as `git merge` reads them with the target checked out
 * (bug 75): an `includeIf "onbranch:…"` is judged against the target, not the main worktree's
 * HEAD. Checked out in a linked worktree: read there. Checked out nowhere: read as git merge would
 * once the target was checked out in the main worktree — its `includeIf "gitdir:…"` and its own
 * `config.worktree` (extensions.worktreeConfig) as there, `onbranch:` for the target; where both a
 * `gitdir:` and an `onbranch:` include change the settings, refused. Each landing is compared
 * with what `git merge` does with the target checked out.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import type { PaddockError } from '../../../../src/core/common/errors';
import { join } from 'node:path';
import { CoordinatorSandbox, git, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';

const IDENTITY = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };

describe('merge: git settings as git merge reads them for the target', function () {
  this.timeout(120_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  const parents = (commit: string): string[] => git(sb.repo, 'rev-list', '--parents', '-n1', commit).split(' ').slice(1);
  /** What `git merge` makes of `branch` into `target` checked out in `worktree`: 'ff' or 'merge' (all put back after). */
  function gitMerges(worktree: string, target: string, branch: string): 'ff' | 'merge' {
    const back = git(worktree, 'rev-parse', '--abbrev-ref', 'HEAD');
    const before = git(worktree, 'rev-parse', target);
    if (back !== target) git(worktree, 'checkout', '-q', target);
    execFileSync('git', ['merge', '-q', '--no-edit', branch], { cwd: worktree, stdio: 'ignore', env: { ...process.env, ...IDENTITY } });
    const kind = parents(git(worktree, 'rev-parse', 'HEAD')).length === 2 ? 'merge' : 'ff';
    git(worktree, 'reset', '-q', '--hard', before);
    if (back !== target) git(worktree, 'checkout', '-q', back);
    return kind;
  }
  /** The landing's scratch folder holds nothing of the look once it is over. */
  const scratchLeft = (): string[] => (existsSync(join(sb.home, 'landing')) ? readdirSync(join(sb.home, 'landing')) : []);

  it("an includeIf onbranch: the target's (merge.ff=false: a merge commit), not the main worktree's branch's", async () => {
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'echo a > a.txt && git add -A && git commit -qm "agent a"'], title: 'adds a' });
    const a = await sb.waitEnded(job.id);
    const base = git(sb.repo, 'rev-parse', 'main');
    const included = join(sb.home, 'release.gitconfig');
    writeFileSync(included, '[merge]\n\tff = false\n');
    git(sb.repo, 'config', 'includeIf.onbranch:release/*.path', included);
    git(sb.repo, 'branch', 'release/one', base);
    const probe = join(sb.home, 'probe');
    git(sb.repo, 'worktree', 'add', '-q', probe, 'release/one');
    assert.equal(gitMerges(probe, 'release/one', a.branch!), 'merge', 'git merge there makes a merge commit');

    // Checked out in a linked worktree: read there.
    const inWorktree = await c.merge(a.id, { into: 'release/one' });
    assert.equal(inWorktree.kind, 'merge');
    assert.deepEqual(parents(inWorktree.commit), [base, git(sb.repo, 'rev-parse', a.branch!)]);
    assert.ok(existsSync(join(probe, 'a.txt')), 'the worktree was moved with it');
    // Its folder gone: refused in the landing's own sentence, not the config read's.
    rmSync(probe, { recursive: true, force: true });
    git(sb.repo, 'update-ref', 'refs/heads/release/one', base);
    await assert.rejects(c.merge(a.id, { into: 'release/one' }), (e: PaddockError) => e.code === 'TARGET_DIRTY' && /a worktree whose folder is gone/.test(e.message));
    git(sb.repo, 'worktree', 'prune');

    // Checked out nowhere: judged for the target all the same (as git merge with it checked out in the main worktree), nothing left of the look.
    git(sb.repo, 'branch', 'release/two', base);
    assert.equal(gitMerges(sb.repo, 'release/two', a.branch!), 'merge');
    const nowhere = await c.merge(a.id, { into: 'release/two' });
    assert.equal(nowhere.kind, 'merge');
    assert.deepEqual(parents(nowhere.commit), [base, git(sb.repo, 'rev-parse', a.branch!)]);
    assert.deepEqual(scratchLeft(), []);

    // The main worktree's own branch is not the target's: main still fast-forwards, as git merge does there.
    assert.equal(gitMerges(sb.repo, 'main', a.branch!), 'ff');
    assert.equal((await c.merge(a.id)).kind, 'ff');
  });

  it("a target checked out nowhere: the main worktree's includeIf gitdir: and config.worktree as git merge reads them there; with onbranch: as well, only when they bear on the settings", async () => {
    const c = sb.coordinator();
    const a = await sb.waitEnded((await c.start({ repo: sb.repo, command: ['sh', '-c', 'echo a > a.txt && git add -A && git commit -qm "agent a"'], title: 'adds a' })).id);
    const base = git(sb.repo, 'rev-parse', 'main');
    const noFastForward = join(sb.home, 'noff.gitconfig');
    writeFileSync(noFastForward, '[merge]\n\tff = false\n');
    const fresh = (target: string): string => (git(sb.repo, 'branch', '-f', target, base), target);
    const land = async (target: string): Promise<string> => {
      git(sb.repo, 'branch', '-f', target, base);
      const kind = (await c.merge(a.id, { into: target })).kind;
      assert.deepEqual(scratchLeft(), [], 'nothing left of the look');
      return kind;
    };

    // gitdir: the main worktree's git dir matches; a folder of Paddock's own would not.
    git(sb.repo, 'config', `includeIf.gitdir:${realpathSync(join(sb.repo, '.git'))}.path`, noFastForward);
    assert.equal(gitMerges(sb.repo, fresh('release'), a.branch!), 'merge');
    assert.equal(await land('release'), 'merge');
    git(sb.repo, 'config', '--remove-section', `includeIf.gitdir:${realpathSync(join(sb.repo, '.git'))}`);

    // The main worktree's config.worktree (extensions.worktreeConfig), which a git dir of its own does not have.
    git(sb.repo, 'config', 'core.repositoryformatversion', '1');
    git(sb.repo, 'config', 'extensions.worktreeConfig', 'true');
    git(sb.repo, 'config', '--worktree', 'merge.ff', 'false');
    assert.equal(gitMerges(sb.repo, fresh('release'), a.branch!), 'merge');
    assert.equal(await land('release'), 'merge');
    git(sb.repo, 'config', '--worktree', '--unset', 'merge.ff');
    assert.equal(gitMerges(sb.repo, fresh('release'), a.branch!), 'ff');
    assert.equal(await land('release'), 'ff');

    // onbranch: with a gitdir: include that changes no merge setting: onbranch: judged for the target.
    const identity = join(sb.home, 'identity.gitconfig');
    writeFileSync(identity, '[user]\n\tname = someone\n');
    git(sb.repo, 'config', `includeIf.gitdir:${realpathSync(join(sb.repo, '.git'))}.path`, identity);
    git(sb.repo, 'config', 'includeIf.onbranch:rel/*.path', noFastForward);
    assert.equal(gitMerges(sb.repo, fresh('rel/x'), a.branch!), 'merge');
    assert.equal(await land('rel/x'), 'merge');
    // Both changing the settings (gitdir: merge.log, onbranch: merge.ff): Paddock cannot read them as git would, refused.
    writeFileSync(identity, '[merge]\n\tlog = true\n');
    git(sb.repo, 'branch', '-f', 'rel/y', base);
    await assert.rejects(c.merge(a.id, { into: 'rel/y' }), (e: PaddockError) => {
      assert.equal(e.code, 'GIT_SETTING');
      assert.match(e.message, /^git's includeIf "gitdir:…" and "onbranch:…" settings both change git merge's settings for rel\/y, which is checked out nowhere/);
      return true;
    });
    assert.equal(git(sb.repo, 'rev-parse', 'rel/y'), base);
    assert.deepEqual(scratchLeft(), []);
  });
});
