/**
 * Files git does not track — untracked, ignored, or the person's inside a folder the landing turns
 * into a file — are never overwritten or deleted by moving a working tree: Apply to Workspace,
 * a landing that advances a checked-out target, and Update from Base each refuse up front with
 * the list, and after the refusal every file and the index are byte for byte as before.
 */
import * as assert from 'node:assert/strict';
import { readFileSync, symlinkSync } from 'node:fs';
import * as path from 'node:path';
import { applyCommitToWorktree, landBranch, updateFromBase, worktreeStateCommit, type LandStrategy } from '../../../../src/core/git';
import type { PaddockError } from '../../../../src/core/common/errors';
import { git, Sandbox, useGitSandbox, write } from './gitTestUtil';
import { assertSameState, treeState } from './treeState';

/** What the agent does in its worktree, and what the person has in the main worktree meanwhile. */
interface Case {
  name: string;
  agent: (wt: string) => void;
  person: (repo: string) => void;
  blocked: string[];
}

const CASES: Case[] = [
  {
    name: 'an untracked file in a folder the agent replaces by a file',
    agent: (wt) => {
      git(wt, 'rm', '-rq', 'dir');
      write(wt, 'dir', 'now a file\n');
    },
    person: (repo) => write(repo, 'dir/mine.txt', 'mine\n'),
    blocked: ['dir/mine.txt'],
  },
  {
    name: 'an ignored file in a folder the agent replaces by a file',
    agent: (wt) => {
      git(wt, 'rm', '-rq', 'dir');
      write(wt, 'dir', 'now a file\n');
    },
    person: (repo) => write(repo, 'dir/build.log', 'a log of mine\n'),
    blocked: ['dir/build.log'],
  },
  {
    name: 'an ignored file at a path the agent adds',
    agent: (wt) => {
      write(wt, 'secret.env', 'AGENT\n');
      git(wt, 'add', '-f', 'secret.env');
    },
    person: (repo) => write(repo, 'secret.env', 'PERSONAL-SECRET\n'),
    blocked: ['secret.env'],
  },
  {
    name: 'an untracked file where the agent adds a folder',
    agent: (wt) => write(wt, 'notes/a.txt', 'agent notes\n'),
    person: (repo) => write(repo, 'notes', 'my notes, a file\n'),
    blocked: ['notes'],
  },
  {
    name: 'an ignored file where the agent adds a folder deeper down',
    agent: (wt) => {
      write(wt, 'out/deep/a.txt', 'agent output\n');
      git(wt, 'add', '-f', 'out');
    },
    person: (repo) => write(repo, 'out/deep', 'ignored, mine\n'),
    blocked: ['out/deep'],
  },
  {
    name: 'an ignored symlink where the agent adds a folder',
    agent: (wt) => {
      write(wt, 'out/a.txt', 'agent output\n');
      git(wt, 'add', '-f', 'out');
    },
    person: (repo) => symlinkSync('/tmp', path.join(repo, 'out')),
    blocked: ['out'],
  },
];

describe('git: files git does not track are never overwritten by a landing', function () {
  this.timeout(30_000);
  let sb!: Sandbox;
  useGitSandbox((fresh) => (sb = fresh));

  function setup(agent: (wt: string) => void) {
    const repo = sb.repo({ 'README.md': 'hello\n', 'dir/f': 'f\n', 'dir/g': 'g\n', '.gitignore': '*.log\n*.env\nout\n' });
    const wt = sb.path('agent-wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/agent', wt, 'main');
    agent(wt);
    // An edit elsewhere too, so that a half-done landing shows.
    write(wt, 'README.md', 'hello\nagent\n');
    return { repo, wt };
  }

  /** Every file of the worktree, and its index's bytes. */
  function snapshot(worktree: string) {
    const gitDir = git(worktree, 'rev-parse', '--absolute-git-dir');
    return { files: treeState(worktree), index: readFileSync(path.join(gitDir, 'index')).toString('base64'), head: git(worktree, 'rev-parse', 'HEAD') };
  }

  function assertUnchanged(worktree: string, before: ReturnType<typeof snapshot>) {
    const after = snapshot(worktree);
    assertSameState(after.files, before.files);
    assert.equal(after.index, before.index, 'the index is byte for byte as it was');
    assert.equal(after.head, before.head);
  }

  function refusal(blocked: string[]) {
    return (e: PaddockError) => {
      assert.equal(e.code, 'UNTRACKED_IN_THE_WAY', e.message);
      for (const file of blocked) assert.ok(e.message.includes(file), `${e.message} names ${file}`);
      assert.match(e.message, /nothing was changed/);
      return true;
    };
  }

  for (const c of CASES) {
    it(`apply refuses ${c.name}, changing nothing`, async () => {
      const { repo, wt } = setup(c.agent);
      const state = await worktreeStateCommit(wt, 'state');
      c.person(repo);
      const before = snapshot(repo);
      await assert.rejects(applyCommitToWorktree(repo, state, 'Agent work'), refusal(c.blocked));
      assertUnchanged(repo, before);
    });
  }

  function committedSetup(agent: (wt: string) => void) {
    const { repo, wt } = setup(agent);
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '-m', 'agent');
    return { repo, wt, tip: git(wt, 'rev-parse', 'HEAD') };
  }

  function land(repo: string, source: string, strategy: LandStrategy) {
    return landBranch({ repo, target: 'main', source, sourceName: 'paddock/agent', strategy, message: 'Land it\n', scratchRoot: sb.path('scratch') });
  }

  for (const c of CASES) {
    it(`a merge into the checked-out target refuses ${c.name}, changing nothing`, async () => {
      const { repo, tip } = committedSetup(c.agent);
      c.person(repo);
      const before = snapshot(repo);
      await assert.rejects(land(repo, tip, 'merge'), refusal(c.blocked));
      assertUnchanged(repo, before);
    });
  }

  for (const strategy of ['squash', 'rebase', 'ff-only'] as const) {
    it(`a ${strategy} landing refuses to overwrite an ignored file of the target's worktree, changing nothing`, async () => {
      const { repo, tip } = committedSetup(CASES[2].agent);
      if (strategy === 'rebase') {
        // The target moves on, so the rebase makes new commits rather than fast-forwarding.
        write(repo, 'other.txt', 'main moves\n');
        git(repo, 'add', '-A');
        git(repo, 'commit', '-q', '-m', 'main moves');
      }
      CASES[2].person(repo);
      const before = snapshot(repo);
      await assert.rejects(land(repo, tip, strategy), refusal(['secret.env']));
      assertUnchanged(repo, before);
      assert.equal(readFileSync(path.join(repo, 'secret.env'), 'utf8'), 'PERSONAL-SECRET\n');
    });
  }

  for (const c of CASES) {
    for (const rebase of [false, true]) {
      it(`update (${rebase ? 'rebase' : 'merge'}) refuses ${c.name} in the agent's worktree when the base brings it, changing nothing`, async () => {
        const { repo, wt } = committedSetup(() => undefined);
        // Here the base makes the change, and the agent's worktree holds the file in the way.
        c.agent(repo);
        git(repo, 'add', '-A');
        git(repo, 'commit', '-q', '-m', 'base moves');
        c.person(wt);
        const before = snapshot(wt);
        await assert.rejects(updateFromBase(wt, git(repo, 'rev-parse', 'main'), 'main', { rebase }), refusal(c.blocked));
        assertUnchanged(wt, before);
      });
    }
  }

  it('a rebase update refuses an ignored file at a path one of the agent\'s own commits adds and a later one deletes', async () => {
    const { repo, wt } = committedSetup(() => undefined);
    write(wt, 'scratch.env', 'AGENT, for a while\n');
    git(wt, 'add', '-f', 'scratch.env');
    git(wt, 'commit', '-q', '-m', 'agent adds it');
    git(wt, 'rm', '-q', 'scratch.env');
    git(wt, 'commit', '-q', '-m', 'agent removes it');
    write(repo, 'other.txt', 'main moves\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'main moves');
    write(wt, 'scratch.env', 'MINE\n');
    const before = snapshot(wt);
    await assert.rejects(updateFromBase(wt, git(repo, 'rev-parse', 'main'), 'main', { rebase: true }), refusal(['scratch.env']));
    assertUnchanged(wt, before);
  });

  it('apply still lands a folder replaced by a file when the folder holds only what the base tracks', async () => {
    const { repo, wt } = setup(CASES[0].agent);
    const state = await worktreeStateCommit(wt, 'state');
    write(repo, 'elsewhere.log', 'an ignored file the patch does not touch\n');
    const files = await applyCommitToWorktree(repo, state, 'Agent work');
    assert.deepEqual(files.sort(), ['README.md', 'dir', 'dir/f', 'dir/g']);
    assert.equal(readFileSync(path.join(repo, 'dir'), 'utf8'), 'now a file\n');
    assert.equal(readFileSync(path.join(repo, 'elsewhere.log'), 'utf8'), 'an ignored file the patch does not touch\n');
  });
});
