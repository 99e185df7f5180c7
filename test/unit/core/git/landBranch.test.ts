/**
 * Landing a branch on a target in real repositories: fast-forward, true merge,
 * squash, rebase, fast-forward-only refusal, and the promise that a conflict
 * or a refusal leaves the target's ref, index and every working-tree byte as
 * they were — checked out clean, checked out dirty, or not checked out at all.
 */
import * as assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { advanceBranch, ancestry, branchTip, branchTips, isAncestor, landBranch, LandingConflict, sweepLandingWorktrees, updateFromBase, commitAllWork, MERGE_SETTINGS_DEFAULT, type LandStrategy } from '../../../../src/core/git';
import { PaddockError } from '../../../../src/core/common/errors';
import { git, Sandbox, useGitSandbox, write } from './gitTestUtil';
import { assertSameState, treeState } from './treeState';

/** The target's observable state: its ref, the index file's bytes, and every file of the main working tree. */
function snapshotOf(repo: string, branch: string) {
  return {
    ref: git(repo, 'rev-parse', `refs/heads/${branch}`),
    index: readFileSync(path.join(repo, '.git', 'index')).toString('base64'),
    files: treeState(repo),
  };
}

function assertUnchanged(repo: string, branch: string, before: ReturnType<typeof snapshotOf>): void {
  const after = snapshotOf(repo, branch);
  assert.equal(after.ref, before.ref, 'target ref unchanged');
  assert.equal(after.index, before.index, 'index byte-identical');
  assertSameState(after.files, before.files);
}

describe('git: landBranch', function () {
  this.timeout(30_000);
  let sb!: Sandbox;
  useGitSandbox((fresh) => (sb = fresh));

  /** A repo on main, and an agent worktree on paddock/agent with one commit. */
  function setup(agentFiles: Record<string, string> = { 'feature.txt': 'feature\n' }) {
    const repo = sb.repo({ 'README.md': 'hello\n', 'shared.txt': 'one\ntwo\nthree\n' });
    const wt = sb.path('agent-wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/agent', wt, 'main');
    for (const [rel, content] of Object.entries(agentFiles)) write(wt, rel, content);
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '-m', 'agent work');
    const tip = git(wt, 'rev-parse', 'HEAD');
    return { repo, wt, tip, scratch: sb.path('scratch') };
  }

  function land(repo: string, source: string, strategy: LandStrategy, scratch: string, target = 'main') {
    return landBranch({ repo, target, source, sourceName: 'paddock/agent', strategy, message: 'Land it\n', scratchRoot: scratch });
  }

  function mainMoves(repo: string, rel = 'other.txt', content = 'other\n') {
    write(repo, rel, content);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'main moves');
    return git(repo, 'rev-parse', 'HEAD');
  }

  it('does not move a checked-out target that moved, or whose worktree switched branch, since the landing began', async () => {
    const { repo, tip } = setup();
    const from = git(repo, 'rev-parse', 'main');
    // Moved: the target is no longer at the commit the landing started from.
    const moved = mainMoves(repo);
    const before = snapshotOf(repo, 'main');
    await assert.rejects(advanceBranch(repo, 'main', from, tip, 'test', repo), (e: PaddockError) => e.code === 'TARGET_MOVED');
    assertUnchanged(repo, 'main', before);
    // Switched: the worktree now has another branch checked out at the very commit the landing started from.
    git(repo, 'checkout', '-q', '-b', 'elsewhere', from);
    const beforeSwitch = { main: git(repo, 'rev-parse', 'main'), elsewhere: git(repo, 'rev-parse', 'elsewhere') };
    await assert.rejects(advanceBranch(repo, 'main', from, tip, 'test', repo), (e: PaddockError) => e.code === 'TARGET_MOVED');
    assert.deepEqual({ main: git(repo, 'rev-parse', 'main'), elsewhere: git(repo, 'rev-parse', 'elsewhere') }, beforeSwitch, 'neither branch moved');
    assert.equal(beforeSwitch.main, moved);
    // Back on main, at the commit the landing starts from, its ref packed (read from packed-refs): it moves.
    git(repo, 'checkout', '-q', 'main');
    git(repo, 'pack-refs', '--all');
    const next = git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit-tree', `${moved}^{tree}`, '-p', moved, '-m', 'next');
    await advanceBranch(repo, 'main', moved, next, 'test', repo);
    assert.equal(git(repo, 'rev-parse', 'main'), next);
  });

  it('fast-forwards when the target has not moved, updating the checked-out worktree', async () => {
    const { repo, tip, scratch } = setup();
    const res = await land(repo, tip, 'merge', scratch);
    assert.equal(res.kind, 'ff');
    assert.equal(git(repo, 'rev-parse', 'main'), tip);
    assert.equal(readFileSync(path.join(repo, 'feature.txt'), 'utf8'), 'feature\n');
    assert.equal(git(repo, 'status', '--porcelain'), '');
  });

  /** Loose objects in the repository's object database (what a garbage collection packs). */
  function looseObjects(repo: string): number {
    const objects = path.join(repo, '.git', 'objects');
    return readdirSync(objects).filter((d) => /^[0-9a-f]{2}$/.test(d)).reduce((n, d) => n + readdirSync(path.join(objects, d)).length, 0);
  }

  // git merge, rebase and commit end by starting git's automatic maintenance: with enough loose
  // objects, a garbage collection of the person's repository (in the background, by default).
  it('sets off none of git\'s automatic maintenance in the person\'s repository: a merge, a rebase, an update and a commit of the agent\'s work leave its loose objects unpacked', async () => {
    const { repo, wt, tip, scratch } = setup();
    mainMoves(repo);
    // A repository past its gc threshold at once (gc.auto=1), whose gc would run in the foreground: deterministic.
    git(repo, 'config', 'gc.auto', '1');
    git(repo, 'config', 'gc.autoDetach', 'false');
    // git guesses the loose objects from one folder of 256 (objects/17): at least two there.
    const blobs = sb.path('blobs');
    mkdirSync(blobs);
    const in17 = () => (existsSync(path.join(repo, '.git', 'objects', '17')) ? readdirSync(path.join(repo, '.git', 'objects', '17')).length : 0);
    for (let batch = 0; in17() < 2; batch++) {
      assert.ok(batch < 20, 'could not make loose objects');
      const files = Array.from({ length: 500 }, (_, i) => path.join(blobs, `${batch}-${i}`));
      files.forEach((f, i) => writeFileSync(f, `loose ${batch} ${i}\n`));
      spawnSync('git', ['hash-object', '-w', '--stdin-paths'], { cwd: repo, input: files.join('\n') });
    }
    const before = looseObjects(repo);
    // The old code, measured: the landing's fast-forward packed them all (0 left).
    assert.equal((await land(repo, tip, 'merge', scratch)).kind, 'merge');
    assert.ok(looseObjects(repo) >= before, `a merge landing packed the repository: ${looseObjects(repo)} of ${before} loose objects left`);
    // The update from base (a merge in the agent's worktree, and a rebase), and a rebase landing.
    // main moves on, by commits that collect nothing themselves.
    const mainMovesQuietly = (rel: string) => {
      write(repo, rel, `${rel}\n`);
      git(repo, 'add', '-A');
      git(repo, '-c', 'gc.auto=0', '-c', 'maintenance.auto=false', 'commit', '-q', '-m', `main moves: ${rel}`);
    };
    mainMovesQuietly('third.txt');
    await updateFromBase(wt, 'main', 'main', { rebase: false });
    assert.ok(looseObjects(repo) >= before, 'an update from base packed the repository');
    // Its uncommitted work committed first (Commit and Land).
    write(wt, 'more.txt', 'more\n');
    await commitAllWork(wt, 'more', 'paddock/agent');
    assert.ok(looseObjects(repo) >= before, 'committing the agent\'s work packed the repository');
    mainMovesQuietly('fourth.txt');
    await updateFromBase(wt, 'main', 'main', { rebase: true });
    const rebased = await land(repo, git(wt, 'rev-parse', 'HEAD'), 'rebase', scratch);
    assert.ok(['rebase', 'ff'].includes(rebased.kind));
    assert.ok(looseObjects(repo) >= before, 'a rebase packed the repository');
    // What the person's own git does is untouched: it still collects.
    git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'the person commits');
    assert.ok(looseObjects(repo) < before, 'the person\'s own commit did not collect: this test tests nothing');
  });

  it('makes a true merge commit when both moved, with both parents', async () => {
    const { repo, tip, scratch } = setup();
    const old = mainMoves(repo);
    const res = await land(repo, tip, 'merge', scratch);
    assert.equal(res.kind, 'merge');
    assert.equal(git(repo, 'rev-parse', 'main'), res.commit);
    assert.equal(git(repo, 'rev-list', '--parents', '-n1', 'main'), `${res.commit} ${old} ${tip}`);
    assert.equal(git(repo, 'log', '-1', '--format=%s', 'main'), 'Land it');
    assert.equal(readFileSync(path.join(repo, 'feature.txt'), 'utf8'), 'feature\n');
    assert.equal(readFileSync(path.join(repo, 'other.txt'), 'utf8'), 'other\n');
    assert.equal(git(repo, 'status', '--porcelain'), '');
  });

  it('squashes into one commit with one parent', async () => {
    const { repo, wt, scratch } = setup();
    write(wt, 'second.txt', '2\n');
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '-m', 'second');
    const tip = git(wt, 'rev-parse', 'HEAD');
    const old = mainMoves(repo);
    const res = await land(repo, tip, 'squash', scratch);
    assert.equal(res.kind, 'squash');
    assert.equal(git(repo, 'rev-list', '--parents', '-n1', 'main'), `${res.commit} ${old}`);
    assert.deepEqual(git(repo, 'diff', '--name-only', old, 'main').split('\n'), ['feature.txt', 'second.txt']);
  });

  it('rebases the agent commits onto the target without rewriting the target, and removes its temporary worktree', async () => {
    const { repo, tip, scratch } = setup();
    const old = mainMoves(repo);
    const res = await land(repo, tip, 'rebase', scratch);
    assert.equal(res.kind, 'rebase');
    assert.equal(git(repo, 'rev-parse', 'main~1'), old, 'linear: the old target is the parent');
    assert.equal(git(repo, 'log', '-1', '--format=%s', 'main'), 'agent work');
    assert.equal(git(repo, 'rev-parse', 'paddock/agent'), tip, "the agent's branch itself is not moved");
    assert.deepEqual(readdirSync(scratch), [], 'temporary worktree removed');
    assert.equal(git(repo, 'worktree', 'list').split('\n').length, 2);
  });

  it("runs none of the repository's hooks in its temporary worktree: a failing post-checkout and a refusing pre-rebase do not stop a rebase landing", async () => {
    const { repo, tip, scratch } = setup();
    const ran = sb.path('hooks-ran.txt');
    for (const hook of ['post-checkout', 'pre-rebase']) {
      write(repo, `.git/hooks/${hook}`, `#!/bin/sh\necho ${hook} >> '${ran}'\nexit 1\n`);
      chmodSync(path.join(repo, '.git', 'hooks', hook), 0o755);
    }
    mainMoves(repo);
    const res = await land(repo, tip, 'rebase', scratch);
    assert.equal(res.kind, 'rebase');
    assert.equal(git(repo, 'log', '-1', '--format=%s', 'main'), 'agent work');
    assert.equal(existsSync(ran), false, `no hook ran: ${existsSync(ran) ? readFileSync(ran, 'utf8') : ''}`);
    assert.deepEqual(readdirSync(scratch), [], 'temporary worktree removed');
    assert.equal(git(repo, 'worktree', 'list').split('\n').length, 2);
  });

  it('a temporary worktree git cannot check out (a required smudge filter whose program is missing) refuses the rebase in one sentence, changing nothing (bug 55)', async () => {
    const { repo, tip, scratch } = setup();
    mainMoves(repo);
    git(repo, 'config', 'filter.crypt.smudge', 'paddock-no-such-filter-program %f');
    git(repo, 'config', 'filter.crypt.required', 'true');
    write(repo, '.git/info/attributes', 'feature.txt filter=crypt\n');
    const before = git(repo, 'rev-parse', 'main');
    await assert.rejects(land(repo, tip, 'rebase', scratch), (e: PaddockError) => {
      assert.match(e.message, /^Could not make the landing's temporary worktree of .* \(.*\); nothing was changed\.$/);
      return true;
    });
    assert.equal(git(repo, 'rev-parse', 'main'), before);
    assert.deepEqual(readdirSync(scratch), [], 'temporary worktree removed');
    assert.equal(git(repo, 'worktree', 'list').split('\n').length, 2);
  });

  it('a merge, squash or rebase in a repository where git has no name and email for the person is refused in one sentence with the way out, changing nothing (bug 55)', async () => {
    const { repo, tip, scratch } = setup();
    mainMoves(repo);
    git(repo, 'config', '--unset', 'user.name');
    git(repo, 'config', '--unset', 'user.email');
    // No guess from the host name either, whatever machine runs the test.
    git(repo, 'config', 'user.useConfigOnly', 'true');
    const before = snapshotOf(repo, 'main');
    for (const strategy of ['merge', 'squash', 'rebase'] as const) {
      await assert.rejects(land(repo, tip, strategy, scratch), (e: PaddockError) => {
        assert.match(e.message, /^(Could not make a commit in|Rebasing paddock\/agent onto main failed:) .*\(git needs your name and email: git config --global user\.name NAME and user\.email ADDRESS\); nothing was changed\.$/);
        assert.equal(e.message.split('\n').length, 1);
        return true;
      });
    }
    assertUnchanged(repo, 'main', before);
  });

  it('--ff-only refuses when the target moved, changing nothing', async () => {
    const { repo, tip, scratch } = setup();
    mainMoves(repo);
    const before = snapshotOf(repo, 'main');
    await assert.rejects(land(repo, tip, 'ff-only', scratch), (e: PaddockError) => e.code === 'NOT_FAST_FORWARD' && /nothing was changed/.test(e.message));
    assertUnchanged(repo, 'main', before);
  });

  // Bug 61: a plain merge fast-forwarded whatever git's merge.ff said.
  it("a merge under merge.ff=false makes a merge commit where a fast-forward would do (the checked-out worktree moved with it); --ff-only still fast-forwards", async () => {
    const { repo, tip, scratch } = setup();
    const old = git(repo, 'rev-parse', 'main');
    const never = { policy: 'never', setBy: 'merge.ff=false' } as const;
    const res = await landBranch({ repo, target: 'main', source: tip, sourceName: 'paddock/agent', strategy: 'merge', message: 'Land it\n', scratchRoot: scratch, settings: { ...MERGE_SETTINGS_DEFAULT, fastForward: never } });
    assert.equal(res.kind, 'merge');
    assert.equal(git(repo, 'rev-list', '--parents', '-n1', 'main'), `${res.commit} ${old} ${tip}`);
    assert.equal(git(repo, 'rev-parse', 'main^{tree}'), git(repo, 'rev-parse', `${tip}^{tree}`));
    assert.equal(readFileSync(path.join(repo, 'feature.txt'), 'utf8'), 'feature\n');
    assert.equal(git(repo, 'status', '--porcelain'), '');

    git(repo, 'reset', '-q', '--hard', old);
    const ff = await landBranch({ repo, target: 'main', source: tip, sourceName: 'paddock/agent', strategy: 'ff-only', message: '', scratchRoot: scratch, settings: { ...MERGE_SETTINGS_DEFAULT, fastForward: never } });
    assert.equal(ff.kind, 'ff');
    assert.equal(git(repo, 'rev-parse', 'main'), tip);
  });

  // Bug 66: merge.log / --log, on the path that makes its own merge commit (no merge made ahead: an agent stopped first).
  it("a merge commit made here lists the merged commits under its message as merge.log asks, git merge's own list", async () => {
    const { repo, tip, scratch } = setup();
    mainMoves(repo);
    const listOf = (commit: string): string => {
      const body = git(repo, 'log', '-1', '--format=%B', commit);
      return body.slice(body.indexOf('\n* '));
    };
    const old = git(repo, 'rev-parse', 'main');
    git(repo, '-c', 'merge.log=true', 'merge', '-q', '--no-edit', 'paddock/agent');
    const gits = listOf('main');
    git(repo, 'reset', '-q', '--hard', old);
    const res = await landBranch({ repo, target: 'main', source: tip, sourceName: 'paddock/agent', strategy: 'merge', message: 'Land it\n', scratchRoot: scratch, settings: { ...MERGE_SETTINGS_DEFAULT, log: 20 } });
    assert.equal(res.kind, 'merge');
    assert.match(gits, /^\n\* paddock\/agent:\n {2}\S/);
    assert.equal(listOf(res.commit), gits);
    assert.ok(git(repo, 'log', '-1', '--format=%B', res.commit).startsWith('Land it\n\n* paddock/agent:'));
  });

  it('a merge under merge.ff=only fast-forwards when it can, and is refused as --ff-only is, naming the setting, when the target moved', async () => {
    const only = { policy: 'only', setBy: 'merge.ff=only' } as const;
    const { repo, tip, scratch } = setup();
    const landOnly = () => landBranch({ repo, target: 'main', source: tip, sourceName: 'paddock/agent', strategy: 'merge', message: 'Land it\n', scratchRoot: scratch, settings: { ...MERGE_SETTINGS_DEFAULT, fastForward: only } });
    mainMoves(repo);
    const before = snapshotOf(repo, 'main');
    await assert.rejects(landOnly(), (e: PaddockError) => {
      assert.equal(e.code, 'NOT_FAST_FORWARD');
      assert.equal(e.message, "main cannot be fast-forwarded to paddock/agent: it has commits the branch lacks; nothing was changed (git's merge.ff=only allows a merge only as a fast-forward: squash or rebase instead).");
      return true;
    });
    assertUnchanged(repo, 'main', before);
    git(repo, 'reset', '-q', '--hard', 'main~1');
    assert.equal((await landOnly()).kind, 'ff');
    assert.equal(git(repo, 'rev-parse', 'main'), tip);
  });

  for (const strategy of ['merge', 'squash', 'rebase'] as const) {
    it(`a ${strategy} conflict lists the files and leaves target ref, index and every file byte-identical`, async () => {
      const { repo, tip, scratch } = setup({ 'shared.txt': 'one\nAGENT\nthree\n' });
      mainMoves(repo, 'shared.txt', 'one\nMAIN\nthree\n');
      write(repo, 'untracked-note.txt', 'mine\n');
      const before = snapshotOf(repo, 'main');
      await assert.rejects(land(repo, tip, strategy, scratch), (e: unknown) => {
        assert.ok(e instanceof LandingConflict, String(e));
        assert.deepEqual(e.files, ['shared.txt']);
        assert.match(e.message, /shared\.txt.*nothing was changed/);
        return true;
      });
      assertUnchanged(repo, 'main', before);
      assert.ok(!existsSync(path.join(repo, '.git', 'MERGE_HEAD')));
      assert.deepEqual(existsSync(scratch) ? readdirSync(scratch) : [], []);
    });
  }

  it('refuses when the target is checked out with uncommitted changes (no stash), changing nothing', async () => {
    const { repo, tip, scratch } = setup();
    write(repo, 'README.md', 'edited by the person\n');
    const before = snapshotOf(repo, 'main');
    await assert.rejects(land(repo, tip, 'merge', scratch), (e: PaddockError) => e.code === 'TARGET_DIRTY' && /README\.md/.test(e.message) && /nothing was changed/.test(e.message));
    assertUnchanged(repo, 'main', before);
    assert.equal(git(repo, 'stash', 'list'), '', 'nothing stashed');
  });

  it('refuses a target that a rebase or a bisect stopped in a worktree is about (HEAD detached there), as git counts it checked out', async () => {
    const { repo, tip, scratch } = setup();
    // The person's own branch, in a worktree of its own, rebased onto main and stopped on a conflict.
    const person = sb.path('person-wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'topic', person, 'main');
    write(person, 'shared.txt', 'topic\n');
    git(person, 'commit', '-q', '-am', 'topic edits shared');
    mainMoves(repo, 'shared.txt', 'main\n');
    assert.notEqual(spawnSync('git', ['rebase', '-q', 'main'], { cwd: person }).status, 0, 'the rebase stops on the conflict');
    assert.doesNotMatch(git(repo, 'worktree', 'list', '--porcelain'), /branch refs\/heads\/topic/, 'git lists the worktree as detached');
    const topicBefore = git(person, 'rev-parse', 'refs/heads/topic');
    const personHead = git(person, 'rev-parse', 'HEAD');
    for (const strategy of ['merge', 'ff-only'] as const) {
      await assert.rejects(land(repo, tip, strategy, scratch, 'topic'), (e: PaddockError) => {
        assert.equal(e.code, 'TARGET_DIRTY');
        assert.match(e.message, /^Branch topic is checked out in .*person-wt with a rebase in progress; finish or abort it first — nothing was changed\.$/);
        return true;
      });
    }
    assert.equal(git(person, 'rev-parse', 'refs/heads/topic'), topicBefore, 'topic not moved');
    assert.equal(git(person, 'rev-parse', 'HEAD'), personHead, 'the rebase is where it stopped');
    // The person's rebase still finishes on their branch.
    write(person, 'shared.txt', 'resolved\n');
    git(person, 'add', 'shared.txt');
    assert.equal(spawnSync('git', ['-c', 'core.editor=true', 'rebase', '--continue'], { cwd: person }).status, 0, 'rebase --continue finishes');
    assert.equal(git(person, 'symbolic-ref', '--short', 'HEAD'), 'topic');

    // A bisect begun on main in the main worktree: main is checked out there while HEAD is detached.
    mainMoves(repo, 'b1.txt', 'b1\n');
    mainMoves(repo, 'b2.txt', 'b2\n');
    git(repo, 'bisect', 'start', 'HEAD', 'HEAD~3');
    assert.equal(git(repo, 'rev-parse', '--abbrev-ref', 'HEAD'), 'HEAD', 'detached by the bisect');
    const mainBefore = git(repo, 'rev-parse', 'refs/heads/main');
    await assert.rejects(land(repo, tip, 'merge', scratch), (e: PaddockError) => e.code === 'TARGET_DIRTY' && /with a bisect in progress/.test(e.message));
    assert.equal(git(repo, 'rev-parse', 'refs/heads/main'), mainBefore, 'main not moved');
    git(repo, 'bisect', 'reset');
    // Once it is over, the same landing goes through.
    assert.equal((await land(repo, tip, 'merge', scratch)).kind, 'merge');
  });

  it('finds a bisect stopped in a checkout whose .git is a symlink to its git dir (the files are where git says, not under a plain .git)', async () => {
    const { repo, tip, scratch } = setup();
    const moved = sb.path('moved.git');
    renameSync(path.join(repo, '.git'), moved);
    symlinkSync(moved, path.join(repo, '.git'));
    mainMoves(repo, 'b1.txt', 'b1\n');
    git(repo, 'bisect', 'start', 'HEAD', 'HEAD~2');
    assert.ok(existsSync(path.join(moved, 'BISECT_START')), 'the bisect state is in the linked git dir');
    const mainBefore = git(repo, 'rev-parse', 'refs/heads/main');
    await assert.rejects(land(repo, tip, 'merge', scratch), (e: PaddockError) => e.code === 'TARGET_DIRTY' && /with a bisect in progress/.test(e.message));
    assert.equal(git(repo, 'rev-parse', 'refs/heads/main'), mainBefore, 'main not moved');
    git(repo, 'bisect', 'reset');
    assert.equal((await land(repo, tip, 'merge', scratch)).kind, 'merge');
  });

  it('refuses a target checked out in a registered worktree whose folder is gone, as git does', async () => {
    const { repo, tip, scratch } = setup();
    const gone = sb.path('gone-wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'topic', gone, 'main');
    rmSync(gone, { recursive: true, force: true });
    const topicBefore = git(repo, 'rev-parse', 'refs/heads/topic');
    await assert.rejects(land(repo, tip, 'merge', scratch, 'topic'), (e: PaddockError) => {
      assert.equal(e.code, 'TARGET_DIRTY');
      assert.match(e.message, /^Branch topic is checked out in .*gone-wt, a worktree whose folder is gone; .* — nothing was changed\.$/);
      return true;
    });
    assert.equal(git(repo, 'rev-parse', 'refs/heads/topic'), topicBefore, 'topic not moved');
  });

  it('lands on a branch checked out nowhere by compare-and-swap, leaving the main worktree alone', async () => {
    const { repo, tip, scratch } = setup();
    git(repo, 'branch', 'release', 'main');
    write(repo, 'README.md', 'dirty main worktree is not the target\n');
    const mainBefore = snapshotOf(repo, 'main');
    mkdirSync(scratch, { recursive: true });
    const res = await land(repo, tip, 'merge', scratch, 'release');
    assert.equal(res.kind, 'ff');
    assert.equal(git(repo, 'rev-parse', 'release'), tip);
    assertUnchanged(repo, 'main', mainBefore);
    assert.match(git(repo, 'reflog', '-1', '--format=%gs', 'release'), /paddock ff: paddock\/agent into release/);
  });

  it('refuses when the source is already in the target', async () => {
    const { repo, tip, scratch } = setup();
    await land(repo, tip, 'merge', scratch);
    await assert.rejects(land(repo, tip, 'merge', scratch), (e: PaddockError) => e.code === 'NOTHING_TO_LAND');
  });

  it('a temporary worktree left by a dead process is removed and unregistered by the next sweep', async () => {
    const { repo, scratch } = setup();
    mkdirSync(scratch, { recursive: true });
    const leftover = path.join(scratch, 'land-999999-deadbeef'); // no such pid
    git(repo, 'worktree', 'add', '-q', '--detach', leftover, 'main');
    const mine = path.join(scratch, `land-${process.pid}-cafe`); // a live process's: kept
    mkdirSync(mine);
    const removed = await sweepLandingWorktrees(scratch);
    assert.deepEqual(removed, [leftover]);
    assert.ok(!existsSync(leftover));
    assert.ok(existsSync(mine));
    assert.doesNotMatch(git(repo, 'worktree', 'list'), /land-999999/);
  });

  it('branchTips answers several branches in one process exactly as branchTip does one by one', async () => {
    const { repo, tip } = setup();
    git(repo, 'tag', '-a', '-m', 'annotated', 'v1', 'main');
    // Branches that point at a tag and at a tree (git refuses to make them: written by hand).
    write(repo, '.git/refs/heads/to-tag', `${git(repo, 'rev-parse', 'v1')}\n`);
    write(repo, '.git/refs/heads/to-tree', `${git(repo, 'rev-parse', 'main^{tree}')}\n`);
    const names = ['paddock/agent', 'main', 'nope', 'to-tag', 'to-tree', 'HEAD', 'a/b'];
    const one = await Promise.all(names.map((n) => branchTip(repo, n)));
    for (const pair of [['paddock/agent', 'main'], ['main', 'nope'], ['nope', 'main'], ['to-tag', 'to-tree'], ['main', 'HEAD'], ['a/b', 'paddock/agent'], ['main']]) {
      assert.deepEqual(await branchTips(repo, pair), pair.map((n) => one[names.indexOf(n)]), pair.join(' '));
    }
    assert.deepEqual(await branchTips(repo, ['paddock/agent', 'main']), [tip, git(repo, 'rev-parse', 'main')]);
  });

  it('ancestry answers both directions in one process exactly as isAncestor does', async () => {
    const { repo, wt, tip } = setup();
    const init = git(repo, 'rev-parse', 'main');
    const moved = mainMoves(repo);
    // A criss-cross: two merges of the same two commits, so their best common ancestors are two.
    git(repo, 'checkout', '-q', '-b', 'cross1', moved);
    git(repo, 'merge', '-q', '--no-edit', tip);
    const cross1 = git(repo, 'rev-parse', 'HEAD');
    git(wt, 'merge', '-q', '--no-edit', moved);
    const cross2 = git(wt, 'rev-parse', 'HEAD');
    git(repo, 'checkout', '-q', 'main');
    const orphan = git(repo, 'commit-tree', '-m', 'unrelated', git(repo, 'rev-parse', 'main^{tree}'));
    const ids = [init, moved, tip, cross1, cross2, orphan];
    for (const a of ids) {
      for (const b of ids) {
        const expected = { aInB: await isAncestor(repo, a, b), bInA: await isAncestor(repo, b, a) };
        assert.deepEqual(await ancestry(repo, a, b), expected, `${ids.indexOf(a)} ${ids.indexOf(b)}`);
      }
    }
    assert.deepEqual(await ancestry(repo, 'main', tip), { aInB: false, bInA: false }, 'names are asked the long way');
    assert.deepEqual(await ancestry(repo, init, 'main'), { aInB: true, bInA: false });
  });
});
