/**
 * Merge into Base and git's other merge settings (bug 66): `branch.<target>.mergeOptions` and
 * `merge.*` are followed where Paddock's own steps can do what `git merge` does (the tip's
 * signature checked, the commit signed or not, unrelated histories allowed), accepted where they
 * change nothing of what lands, and otherwise refused in one sentence naming the setting, with the
 * target's ref, index and files as they were and nothing recorded — never a landing that differs
 * from git merge's. Each case is checked against what `git merge` itself does in the same repository.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PaddockError } from '../../../../src/core/common/errors';
import type { Coordinator } from '../../../../src/core/coordinator';
import type { JobRecord } from '../../../../src/core/store/schema';
import { CoordinatorSandbox, git, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';

const IDENTITY = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };

describe('merge: git merge options', function () {
  this.timeout(90_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  async function agentWithCommit(c: Coordinator, file: string): Promise<JobRecord> {
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', `printf '${file}\\n' > ${file} && git add -A && git commit -qm 'agent ${file}'`], title: `adds ${file}` });
    return sb.waitEnded(job.id);
  }

  /** main moves on another file: landing the agent is a true merge. */
  function mainMoves(file = 'main.txt'): string {
    writeFileSync(join(sb.repo, file), 'main\n');
    git(sb.repo, 'add', '-A');
    git(sb.repo, 'commit', '-qm', 'main moves');
    return git(sb.repo, 'rev-parse', 'main');
  }

  /** Everything a refused landing must leave as it was: main's ref, the index, the files, what git status says. */
  function targetState(): string {
    return [git(sb.repo, 'rev-parse', 'main'), readFileSync(join(sb.repo, '.git', 'index')).toString('base64'), git(sb.repo, 'status', '--porcelain', '--untracked-files=all'), git(sb.repo, 'ls-files', '-s')].join('\n');
  }

  /** Whether `git merge` of `branch` into the checked-out main leaves a new commit on main (put back after). */
  function gitMergeCommits(branch: string, ...args: string[]): boolean {
    const before = git(sb.repo, 'rev-parse', 'main');
    try {
      execFileSync('git', ['merge', '-q', '--no-edit', ...args, branch], { cwd: sb.repo, stdio: 'ignore', env: { ...process.env, ...IDENTITY } });
    } catch {
      // refused: main stays where it was
    }
    const moved = git(sb.repo, 'rev-parse', 'main') !== before;
    git(sb.repo, 'reset', '-q', '--hard', before);
    return moved;
  }

  const parents = (commit: string): string[] => git(sb.repo, 'rev-list', '--parents', '-n1', commit).split(' ').slice(1);

  // Review of bug 75: the window passes a command argument's fastForward on, which no type binds: 'only' acted as merge.ff=only.
  it('a fastForward other than allow or never is refused as bad input, nothing changed', async () => {
    const c = sb.coordinator();
    const a = await agentWithCommit(c, 'a.txt');
    const before = targetState();
    await assert.rejects(c.merge(a.id, { fastForward: 'only' as 'allow' }), (e: PaddockError) => {
      assert.equal(e.kind, 'usage');
      assert.equal(e.message, 'A merge\'s fastForward is "allow" (--ff) or "never" (--no-ff), not "only"; nothing was changed.');
      return true;
    });
    assert.equal(targetState(), before);
    assert.equal((await sb.store.read(a.id)).landing ?? null, null);
  });

  it('options that would make git merge land something else are refused naming the setting, nothing changed, nothing recorded', async () => {
    const c = sb.coordinator();
    const a = await agentWithCommit(c, 'a.txt');
    mainMoves();
    const cases: [string, string, string][] = [
      ['--squash', "git's branch.main.mergeOptions --squash has git merge only stage the changes, with no commit", 'land them as one commit with --squash'],
      ['--no-commit', "git's branch.main.mergeOptions --no-commit has git merge stop before it commits", 'merge with git yourself'],
      ['-s ours', "git's branch.main.mergeOptions -s ours asks git merge for the ours strategy, and Paddock merges with git's ort strategy only", 'merge with git yourself'],
      ['--strategy=resolve', "git's branch.main.mergeOptions -s resolve asks git merge for the resolve strategy, and Paddock merges with git's ort strategy only", 'merge with git yourself'],
      ['-X theirs', "git's branch.main.mergeOptions -X theirs asks git merge for a strategy option, which Paddock's merge (git merge-tree) does not take", 'merge with git yourself'],
      ['--signoff', "git's branch.main.mergeOptions --signoff has git merge add a Signed-off-by line, which Paddock does not write", 'merge with git yourself'],
      ['--no-stat --frobnicate', "git's branch.main.mergeOptions --frobnicate is an option whose effect on git merge Paddock does not know", 'merge with git yourself'],
    ];
    for (const [options, said, way] of cases) {
      git(sb.repo, 'config', 'branch.main.mergeOptions', options);
      const before = targetState();
      await assert.rejects(c.merge(a.id), (e: PaddockError) => {
        assert.equal(e.code, 'GIT_SETTING', options);
        assert.equal(e.message, `${said}; nothing was changed (${way}, or take it out of git's config for main).`);
        return true;
      });
      assert.equal(targetState(), before, `${options}: nothing changed`);
      assert.equal((await sb.store.read(a.id)).landing ?? null, null, `${options}: nothing recorded`);
    }
    // What git merge itself does with the first two: no commit on main.
    git(sb.repo, 'config', 'branch.main.mergeOptions', '--squash');
    assert.equal(gitMergeCommits(a.branch!), false, 'git merge with --squash commits nothing');
    git(sb.repo, 'config', 'branch.main.mergeOptions', '--no-commit');
    assert.equal(gitMergeCommits(a.branch!), false, 'git merge with --no-commit commits nothing');
  });

  it('merge.log and --log list the merged commits under the merge commit\'s message as git merge does, also under a message the person gives (merge.summary the same); a fast-forward gets none', async () => {
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'for n in 1 2 3; do echo $n > f$n; git add -A; git commit -qm "agent step $n"; done; git commit -q --allow-empty -m ""  --allow-empty-message'], title: 'three steps' });
    const a = await sb.waitEnded(job.id);
    git(sb.repo, 'config', 'merge.log', 'true');
    // Nothing to list where nothing is merged: the fast-forward lands as before.
    const probe = await agentWithCommit(c, 'probe.txt');
    assert.equal((await c.merge(probe.id)).kind, 'ff');
    mainMoves();
    /** The list under git merge's own message for the same merge (main put back after). */
    const gitsList = (...args: string[]): string => {
      const before = git(sb.repo, 'rev-parse', 'main');
      execFileSync('git', ['merge', '-q', '--no-edit', ...args, a.branch!], { cwd: sb.repo, stdio: 'ignore', env: { ...process.env, ...IDENTITY } });
      const body = git(sb.repo, 'log', '-1', '--format=%B', 'main');
      git(sb.repo, 'reset', '-q', '--hard', before);
      return body.slice(body.indexOf('\n* '));
    };
    const listOf = (commit: string): string => {
      const body = git(sb.repo, 'log', '-1', '--format=%B', commit);
      return body.slice(body.indexOf('\n* '));
    };
    const all = gitsList();
    assert.match(all, /^\n\* paddock\/\w+:\n {2}[0-9a-f]{40}\n {2}agent step 3\n {2}agent step 2\n {2}agent step 1$/, 'git lists every subject, the empty one by its commit');
    git(sb.repo, 'config', 'branch.main.mergeOptions', '--log=2');
    const two = gitsList();
    assert.match(two, /\(4 commits\)\n {2}[0-9a-f]{40}\n {2}agent step 3\n {2}\.\.\.$/);
    const withMessage = await c.merge(a.id, { message: 'Land the steps\n', fastForward: 'never' });
    assert.equal(git(sb.repo, 'log', '-1', '--format=%B', withMessage.commit), `Land the steps\n${two}`, 'git merge -m lists them under the message given too');
    git(sb.repo, 'reset', '-q', '--hard', withMessage.from);
    const listed = await c.merge(a.id);
    assert.equal(listed.kind, 'merge');
    assert.equal(listOf(listed.commit), two, "the list is git merge's, under Paddock's message");
    assert.match(git(sb.repo, 'log', '-1', '--format=%B', listed.commit), /^Merge branch 'paddock\/\w+' into main\n\nthree steps \(Paddock agent \w+\)\.\n\n\* /);
    // merge.summary is merge.log's older name: the later of the two wins.
    git(sb.repo, 'reset', '-q', '--hard', listed.from);
    git(sb.repo, 'config', '--unset', 'branch.main.mergeOptions');
    git(sb.repo, 'config', 'merge.log', 'false');
    git(sb.repo, 'config', 'merge.summary', '1');
    assert.match(gitsList(), /\(4 commits\)\n {2}[0-9a-f]{40}\n {2}\.\.\.$/);
    assert.equal(listOf((await c.merge(a.id)).commit), gitsList());
  });

  it("pull.twohead is git's too, merge.log lists under a message the person gives as git merge -m does, and an explicit --squash is not bound by mergeOptions --squash", async () => {
    const c = sb.coordinator();
    const a = await agentWithCommit(c, 'a.txt');
    mainMoves();
    git(sb.repo, 'config', 'pull.twohead', 'recursive');
    git(sb.repo, 'config', 'merge.log', 'false');
    // Why, said (bug 75): git merge-tree has ort alone, and recursive is a strategy of its own before git 2.50.
    await assert.rejects(c.merge(a.id), (e: PaddockError) =>
      e.message.startsWith("git's pull.twohead=recursive asks git merge for the recursive strategy, and Paddock merges with git's ort strategy only (git merge-tree, Paddock's merge, has no other"),
    );
    git(sb.repo, 'config', 'pull.twohead', 'ort');
    git(sb.repo, 'config', 'merge.log', '5');
    const merged = await c.merge(a.id, { message: 'Land a\n' });
    assert.equal(merged.kind, 'merge');
    assert.match(git(sb.repo, 'log', '-1', '--format=%B', 'main'), /^Land a\n\n\* paddock\/\w+:\n {2}agent a\.txt$/);

    const b = await agentWithCommit(c, 'b.txt');
    git(sb.repo, 'config', 'branch.main.mergeOptions', '--squash');
    const squashed = await c.merge(b.id, { strategy: 'squash' });
    assert.equal(squashed.kind, 'squash');
    assert.deepEqual(parents(squashed.commit), [merged.commit]);
  });

  it('options that change nothing of what lands are accepted: the merge is the one git merge makes', async () => {
    const c = sb.coordinator();
    const a = await agentWithCommit(c, 'a.txt');
    const moved = mainMoves();
    git(sb.repo, 'config', 'branch.main.mergeOptions', '--no-stat -q --no-edit --autostash --no-verify --cleanup=strip -s ort --no-log --commit');
    const merged = await c.merge(a.id);
    assert.equal(merged.kind, 'merge');
    assert.deepEqual(parents(merged.commit), [moved, git(sb.repo, 'rev-parse', a.branch!)]);
    assert.equal(git(sb.repo, 'status', '--porcelain'), '');
    git(sb.repo, 'reset', '-q', '--hard', moved);
    assert.equal(gitMergeCommits(a.branch!), true, 'git merge makes its merge commit with them too');
  });

  it('--no-gpg-sign is followed over commit.gpgSign (the merge commit made unsigned, as git merge makes it); -S is followed too, and a signing that fails changes nothing', async () => {
    const c = sb.coordinator();
    const a = await agentWithCommit(c, 'a.txt');
    mainMoves();
    // A signing program that always fails: any commit git signs fails.
    git(sb.repo, 'config', 'gpg.program', 'false');
    git(sb.repo, 'config', 'branch.main.mergeOptions', '-S');
    const before = targetState();
    await assert.rejects(c.merge(a.id), /Could not make a commit/);
    assert.equal(targetState(), before);
    assert.equal(gitMergeCommits(a.branch!), false, 'git merge -S fails to sign as well');

    git(sb.repo, 'config', 'commit.gpgSign', 'true');
    git(sb.repo, 'config', 'branch.main.mergeOptions', '--no-gpg-sign');
    const merged = await c.merge(a.id);
    assert.equal(merged.kind, 'merge');
    assert.equal(git(sb.repo, 'cat-file', 'commit', merged.commit).includes('gpgsig'), false);
  });

  it('--verify-signatures and merge.verifySignatures: an unsigned tip is refused as git merge refuses it, nothing changed; a tip signed by a trusted key lands (a fast-forward checks it too)', async () => {
    const c = sb.coordinator();
    const a = await agentWithCommit(c, 'a.txt');
    mainMoves();
    const tip = git(sb.repo, 'rev-parse', a.branch!);
    for (const [key, value, setBy] of [
      ['branch.main.mergeOptions', '--verify-signatures', 'branch.main.mergeOptions --verify-signatures'],
      ['merge.verifySignatures', 'true', 'merge.verifySignatures=true'],
    ]) {
      try {
        execFileSync('git', ['config', '--unset-all', 'branch.main.mergeOptions'], { cwd: sb.repo, stdio: 'ignore' });
      } catch {
        // not set
      }
      git(sb.repo, 'config', key, value);
      const before = targetState();
      await assert.rejects(c.merge(a.id), (e: PaddockError) => {
        assert.equal(e.code, 'UNSIGNED');
        assert.equal(e.message, `Commit ${tip.slice(0, 12)} (the tip of ${a.branch}) does not have a signature, and git's ${setBy} merges only signed commits; nothing was changed.`);
        return true;
      });
      assert.equal(targetState(), before);
      assert.equal((await sb.store.read(a.id)).landing ?? null, null);
      assert.equal(gitMergeCommits(a.branch!), false, `git merge refuses it too (${setBy})`);
    }
    // A running agent asked to be stopped first: its unsigned tip is refused before it is stopped.
    const running = await c.start({ repo: sb.repo, command: ['sh', '-c', "printf 'r\\n' > r.txt && git add -A && git commit -qm 'agent r' && sleep 300"], title: 'runs on' });
    const base = git(sb.repo, 'rev-parse', 'main');
    for (let i = 0; i < 200 && git(sb.repo, 'rev-parse', running.branch!) === base; i++) await new Promise((r) => setTimeout(r, 50));
    await assert.rejects(c.merge(running.id, { running: 'stop' }), (e: PaddockError) => e.code === 'UNSIGNED');
    assert.equal((await sb.store.read(running.id)).lifecycle.state, 'running', 'the agent was not stopped for a landing that is refused');
    await c.stop(running.id);
    // The same with an ssh key git trusts (gpg.ssh.allowedSignersFile): the agent's commit is signed, and lands.
    const key = join(sb.repo, '..', 'signing-key');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'agent@example.invalid', '-f', key]);
    writeFileSync(join(sb.repo, '..', 'allowed-signers'), `t@t ${readFileSync(`${key}.pub`, 'utf8')}`);
    for (const [k, v] of [
      ['gpg.format', 'ssh'],
      ['user.signingKey', key],
      ['commit.gpgSign', 'true'],
      ['gpg.ssh.allowedSignersFile', join(sb.repo, '..', 'allowed-signers')],
    ]) {
      git(sb.repo, 'config', k, v);
    }
    const b = await agentWithCommit(c, 'b.txt');
    assert.equal(git(sb.repo, 'log', '-1', '--format=%G?', b.branch!), 'G', 'the agent commit is signed and trusted');
    assert.equal(gitMergeCommits(b.branch!, '--verify-signatures'), true, 'git merge --verify-signatures takes it');
    const landed = await c.merge(b.id);
    assert.equal(landed.kind, 'ff', 'b began on the moved main');
    assert.equal(git(sb.repo, 'rev-parse', 'main'), git(sb.repo, 'rev-parse', b.branch!));

    // A true merge of a signed tip: the merge commit Paddock makes is unsigned (as git merge's is,
    // without commit.gpgSign), and moving the checked-out main to it must not check it again.
    const d = await agentWithCommit(c, 'd.txt');
    mainMoves('main-before-d.txt');
    git(sb.repo, 'config', 'commit.gpgSign', 'false');
    assert.equal(gitMergeCommits(d.branch!), true, 'git merge takes it');
    const merged = await c.merge(d.id);
    assert.equal(merged.kind, 'merge');
    assert.equal(git(sb.repo, 'rev-parse', 'main'), merged.commit);

    // gpg.minTrustLevel: the signature's trust (an allowed ssh signer is "fully") must reach it, as git judges it.
    git(sb.repo, 'config', 'commit.gpgSign', 'true');
    const e = await agentWithCommit(c, 'e.txt');
    mainMoves('main-before-e.txt');
    git(sb.repo, 'config', 'commit.gpgSign', 'false');
    assert.equal(git(sb.repo, 'log', '-1', '--format=%GT', e.branch!), 'fully');
    git(sb.repo, 'config', 'gpg.minTrustLevel', 'ultimate');
    assert.equal(gitMergeCommits(e.branch!), false, 'git merge refuses a signature below gpg.minTrustLevel');
    const before = targetState();
    await assert.rejects(c.merge(e.id), (err: PaddockError) => err.code === 'UNSIGNED' && /has an untrusted signature, allegedly by t@t/.test(err.message));
    assert.equal(targetState(), before);
    git(sb.repo, 'config', 'gpg.minTrustLevel', 'Fully');
    assert.equal(gitMergeCommits(e.branch!), true, 'git merge takes it at its level');
    assert.equal((await c.merge(e.id)).kind, 'merge');
  });

  it('--allow-unrelated-histories is followed: a branch with no common history lands with it, and is refused as git refuses it without', async () => {
    const c = sb.coordinator();
    const a = await agentWithCommit(c, 'a.txt');
    git(sb.repo, 'checkout', '-q', '--orphan', 'elsewhere');
    git(sb.repo, 'rm', '-rq', '--cached', '.');
    writeFileSync(join(sb.repo, 'other.txt'), 'other\n');
    git(sb.repo, 'add', 'other.txt');
    git(sb.repo, 'commit', '-qm', 'unrelated');
    const elsewhere = git(sb.repo, 'rev-parse', 'elsewhere');
    git(sb.repo, 'checkout', '-qf', 'main');
    await assert.rejects(c.merge(a.id, { into: 'elsewhere' }), /refusing to merge unrelated histories/);
    assert.equal(git(sb.repo, 'rev-parse', 'elsewhere'), elsewhere);
    git(sb.repo, 'config', 'branch.elsewhere.mergeOptions', '--allow-unrelated-histories');
    const merged = await c.merge(a.id, { into: 'elsewhere' });
    assert.equal(merged.kind, 'merge');
    assert.deepEqual(parents(merged.commit), [elsewhere, git(sb.repo, 'rev-parse', a.branch!)]);
  });
});
