/**
 * The landing verbs through the real bundle (dist/cli.js) on real agents:
 * merge (landing recorded in show --json), the uncommitted and running
 * decisions as flags, conflict / dirty target / missing remote as exit 1 with
 * one sentence saying nothing changed, unknown id or branch as exit 2, apply,
 * update, pr (fake gh on PATH, and the compare-page fallback), forget, prune.
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinatorSandbox, git, runCli, useCoordinatorSandbox } from '../core/coordinator/coordinatorFixture';
import { fakeGh, ghCalls } from '../core/git/fakeGh';

function assertOneSentence(stderr: string): void {
  const lines = stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line expected, got: ${stderr}`);
  assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
}

describe('CLI: merge, update, apply, pr, forget, prune', function () {
  this.timeout(90_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  const cli = (args: string[], env: NodeJS.ProcessEnv = sb.env) => runCli(args, { cwd: sb.repo, env, input: '' });

  /** An agent that runs `script` in its worktree and ends. */
  async function agent(script: string, title = 'the agent'): Promise<{ id: string; worktree: string; branch: string }> {
    const res = await cli(['start', '--json', '--title', title, '--', 'sh', '-c', script]);
    assert.equal(res.code, 0, res.stderr);
    const job = JSON.parse(res.stdout);
    const ended = await sb.waitEnded(job.id);
    assert.equal(ended.lifecycle.state, 'completed', JSON.stringify(ended.lifecycle));
    return job;
  }

  const COMMIT = (file: string, text: string) => `printf '${text}\\n' > ${file} && git add -A && git commit -qm 'agent: ${file}'`;

  function mainCommit(file: string, text: string): string {
    writeFileSync(join(sb.repo, file), `${text}\n`);
    git(sb.repo, 'add', '-A');
    git(sb.repo, 'commit', '-qm', `main: ${file}`);
    return git(sb.repo, 'rev-parse', 'main');
  }

  it('merge lands the branch on the base and records landing in show --json; again is refused', async () => {
    const a = await agent(COMMIT('f.txt', 'from agent'));
    const res = await cli(['merge', a.id]);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /fast-forwarded paddock\/\w+ into main/);
    const tip = git(sb.repo, 'rev-parse', a.branch);
    assert.equal(git(sb.repo, 'rev-parse', 'main'), tip);
    assert.equal(readFileSync(join(sb.repo, 'f.txt'), 'utf8'), 'from agent\n');
    const shown = JSON.parse((await cli(['show', a.id, '--json'])).stdout);
    assert.equal(shown.landing.kind, 'ff');
    assert.equal(shown.landing.into, 'main');
    assert.equal(shown.landing.commit, tip);
    assert.equal(shown.landing.url, null);
    assert.match(shown.landing.at, /^\d{4}-/);
    const again = await cli(['merge', a.id]);
    assert.equal(again.code, 1);
    assertOneSentence(again.stderr);
    assert.match(again.stderr, /nothing was changed/);
  });

  // Bug 61: --into the agent's own branch exited 1 with "already has every commit"; a plain merge
  // fast-forwarded whatever git's merge.ff said.
  it("--into the agent's own branch exits 2 naming it; merge.ff=false makes a merge commit (shown and recorded), --ff-only still fast-forwards", async () => {
    const a = await agent(COMMIT('f.txt', 'from agent'));
    const before = git(sb.repo, 'rev-parse', 'main');
    for (const into of [a.branch, `refs/heads/${a.branch}`]) {
      const own = await cli(['merge', a.id, '--into', into]);
      assert.equal(own.code, 2, own.stderr);
      assertOneSentence(own.stderr);
      assert.match(own.stderr, new RegExp(`cannot be landed on its own branch ${a.branch}; `));
    }
    assert.equal(git(sb.repo, 'rev-parse', 'main'), before);

    git(sb.repo, 'config', 'merge.ff', 'false');
    const merged = await cli(['merge', a.id, '--into', 'refs/heads/main']);
    assert.equal(merged.code, 0, merged.stderr);
    assert.match(merged.stdout, /: merged paddock\/\w+ into main \(now at /);
    assert.equal(git(sb.repo, 'rev-list', '--parents', '-n1', 'main').split(' ').length, 3, 'a merge commit');
    const shown = JSON.parse((await cli(['show', a.id, '--json'])).stdout);
    assert.equal(shown.landing.kind, 'merge');
    assert.equal(shown.landing.into, 'main');

    git(sb.repo, 'reset', '-q', '--hard', before);
    const ff = await cli(['merge', a.id, '--ff-only', '--json']);
    assert.equal(ff.code, 0, ff.stderr);
    assert.equal(JSON.parse(ff.stdout).landing.kind, 'ff');
    assert.equal(git(sb.repo, 'rev-parse', 'main'), git(sb.repo, 'rev-parse', a.branch));
  });

  it('--no-ff makes a merge commit where a fast-forward would do, --ff fast-forwards over merge.ff=false, as on git merge\'s command line; with another strategy flag they exit 2', async () => {
    const a = await agent(COMMIT('f.txt', 'from agent'));
    const before = git(sb.repo, 'rev-parse', 'main');
    const noFf = await cli(['merge', a.id, '--no-ff', '--json']);
    assert.equal(noFf.code, 0, noFf.stderr);
    assert.equal(JSON.parse(noFf.stdout).landing.kind, 'merge');
    assert.deepEqual(git(sb.repo, 'rev-list', '--parents', '-n1', 'main').split(' ').slice(1), [before, git(sb.repo, 'rev-parse', a.branch)]);

    git(sb.repo, 'reset', '-q', '--hard', before);
    git(sb.repo, 'config', 'merge.ff', 'false');
    const ff = await cli(['merge', a.id, '--ff', '--json']);
    assert.equal(ff.code, 0, ff.stderr);
    assert.equal(JSON.parse(ff.stdout).landing.kind, 'ff');
    assert.equal(git(sb.repo, 'rev-parse', 'main'), git(sb.repo, 'rev-parse', a.branch));

    for (const flags of [['--no-ff', '--squash'], ['--ff', '--ff-only'], ['--ff', '--no-ff']]) {
      const both = await cli(['merge', a.id, ...flags]);
      assert.equal(both.code, 2, both.stderr);
      assertOneSentence(both.stderr);
      assert.match(both.stderr, /exclude each other/);
    }
  });

  it('--squash makes one commit; cleanup then deletes the landed branch as safe', async () => {
    const a = await agent(`${COMMIT('a.txt', 'a')} && ${COMMIT('b.txt', 'b')}`, 'Squash me');
    const old = mainCommit('m.txt', 'main');
    const res = await cli(['merge', a.id, '--squash', '--json']);
    assert.equal(res.code, 0, res.stderr);
    const record = JSON.parse(res.stdout);
    assert.equal(record.landing.kind, 'squash');
    assert.equal(git(sb.repo, 'rev-parse', 'main~1'), old);
    assert.equal(git(sb.repo, 'log', '-1', '--format=%s', 'main'), 'Squash me');
    const cleaned = await cli(['cleanup', a.id, '--yes', '--json']);
    assert.equal(cleaned.code, 0, cleaned.stderr);
    assert.match(JSON.parse(cleaned.stdout).cleanup.branchOutcome ?? '', /deleted/);
    assert.equal(git(sb.repo, 'branch', '--list', a.branch), '');
  });

  // Bug: after a squash landing was undone (the target reset), cleanup still deleted the branch,
  // saying "all its commits are reachable elsewhere" (only the snapshot had them).
  it('a landing undone since (target reset) no longer makes the branch safe to delete; a pull request never does', async () => {
    const a = await agent(`${COMMIT('u.txt', 'u')} && ${COMMIT('v.txt', 'v')}`, 'Undo me');
    const before = git(sb.repo, 'rev-parse', 'main');
    assert.equal((await cli(['merge', a.id, '--squash'])).code, 0);
    git(sb.repo, 'reset', '-q', '--hard', before);
    const cleaned = await cli(['cleanup', a.id, '--yes', '--json']);
    assert.equal(cleaned.code, 0, cleaned.stderr);
    assert.match(JSON.parse(cleaned.stdout).cleanup.branchOutcome ?? '', /kept: 2 commits not merged/);
    assert.notEqual(git(sb.repo, 'branch', '--list', a.branch), '');

    // A pull request whose remote branch is gone (deleted on the host, then pruned): the branch stays.
    const b = await agent(COMMIT('p.txt', 'p'));
    const bare = join(sb.root, 'prune.git');
    git(sb.root, 'init', '-q', '--bare', bare);
    git(sb.repo, 'remote', 'add', 'origin', bare);
    assert.equal((await cli(['pr', b.id])).code, 0);
    git(bare, 'branch', '-D', b.branch);
    git(sb.repo, 'fetch', '-q', '--prune', 'origin');
    const cleanedB = await cli(['cleanup', b.id, '--yes', '--json']);
    assert.equal(cleanedB.code, 0, cleanedB.stderr);
    assert.match(JSON.parse(cleanedB.stdout).cleanup.branchOutcome ?? '', /kept: 1 commit not merged/);
  });

  // Bug: an agent with nothing the base lacks was pushed anyway (a branch identical to main on the
  // remote, "landed" in its record), where a merge says there is nothing to land.
  it('pr of an agent whose every commit the base has pushes nothing and records nothing', async () => {
    const a = await agent('true');
    const bare = join(sb.root, 'empty.git');
    git(sb.root, 'init', '-q', '--bare', bare);
    git(sb.repo, 'remote', 'add', 'origin', bare);
    const res = await cli(['pr', a.id]);
    assert.equal(res.code, 1);
    assertOneSentence(res.stderr);
    assert.match(res.stderr, /main already has every commit of paddock\/\w+; there is nothing to propose and nothing was pushed/);
    assert.equal(git(bare, 'branch', '--list'), '', 'nothing pushed');
    assert.equal(JSON.parse((await cli(['show', a.id, '--json'])).stdout).landing, null);
  });

  it('uncommitted work needs a decision: exit 2 without one; --commit-uncommitted commits it (title as message) and lands it', async () => {
    const a = await agent(`${COMMIT('c.txt', 'c')} && printf 'wip\\n' > wip.txt`, 'Add wip');
    const refused = await cli(['merge', a.id]);
    assert.equal(refused.code, 2);
    assertOneSentence(refused.stderr);
    assert.match(refused.stderr, /--commit-uncommitted.*--commits-only/);
    assert.equal(git(sb.repo, 'log', '-1', '--format=%s', 'main'), 'init', 'nothing landed');
    const onlyCommits = await cli(['merge', a.id, '--commits-only', '--into', 'main', '--ff-only']);
    assert.equal(onlyCommits.code, 0, onlyCommits.stderr);
    assert.ok(!existsSync(join(sb.repo, 'wip.txt')), 'only the commits landed');
    assert.ok(existsSync(join(a.worktree, 'wip.txt')), 'the uncommitted work stays in the worktree');
    const committed = await cli(['merge', a.id, '--commit-uncommitted']);
    assert.equal(committed.code, 0, committed.stderr);
    assert.equal(readFileSync(join(sb.repo, 'wip.txt'), 'utf8'), 'wip\n');
    assert.equal(git(sb.repo, 'log', '-1', '--format=%s', 'main'), 'Add wip');
  });

  it('conflict, dirty target: exit 1, one sentence, nothing changed; unknown id or --into branch: exit 2', async () => {
    const a = await agent(COMMIT('README.md', 'agent readme'));
    const old = mainCommit('README.md', 'main readme');
    const conflict = await cli(['merge', a.id]);
    assert.equal(conflict.code, 1);
    assertOneSentence(conflict.stderr);
    assert.match(conflict.stderr, /conflicts with main in 1 file \(README\.md\); nothing was changed/);
    assert.equal(git(sb.repo, 'rev-parse', 'main'), old);
    assert.equal(git(sb.repo, 'status', '--porcelain'), '');

    const b = await agent(COMMIT('other.txt', 'x'));
    writeFileSync(join(sb.repo, 'README.md'), 'local edit\n');
    const dirty = await cli(['merge', b.id]);
    assert.equal(dirty.code, 1);
    assertOneSentence(dirty.stderr);
    assert.match(dirty.stderr, /uncommitted changes \(README\.md\).*nothing was changed/);
    assert.equal(git(sb.repo, 'rev-parse', 'main'), old);
    assert.equal(readFileSync(join(sb.repo, 'README.md'), 'utf8'), 'local edit\n');

    assert.equal((await cli(['merge', 'zzzzzz9'])).code, 2);
    const noBranch = await cli(['merge', b.id, '--into', 'no-such-branch']);
    assert.equal(noBranch.code, 2);
    assertOneSentence(noBranch.stderr);
    assert.equal((await cli(['merge', b.id, '--squash', '--rebase'])).code, 2);
  });

  it('update brings the base in; a conflict stays in the worktree and exits 1 listing the file', async () => {
    const a = await agent(COMMIT('README.md', 'agent readme'));
    mainCommit('x.txt', 'x');
    // A clean update first needs no conflict: use a second agent for it.
    const b = await agent(COMMIT('y.txt', 'y'));
    const clean = await cli(['update', b.id]);
    assert.equal(clean.code, 0, clean.stderr);
    assert.ok(existsSync(join(b.worktree, 'x.txt')));
    mainCommit('README.md', 'main readme');
    const res = await cli(['update', a.id]);
    assert.equal(res.code, 1);
    assertOneSentence(res.stderr);
    assert.match(res.stderr, /README\.md.*git merge --continue/);
    assert.match(readFileSync(join(a.worktree, 'README.md'), 'utf8'), /<<<<<<</);
  });

  it('apply puts the diff into the main worktree uncommitted; an overlap with local changes is refused', async () => {
    const a = await agent(`${COMMIT('applied.txt', 'ap')} && printf 'loose\\n' > loose.txt`);
    const head = git(sb.repo, 'rev-parse', 'HEAD');
    const res = await cli(['apply', a.id]);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /2 files changed, uncommitted/);
    assert.equal(git(sb.repo, 'rev-parse', 'HEAD'), head);
    assert.deepEqual(git(sb.repo, 'status', '--porcelain').split('\n').sort(), ['?? applied.txt', '?? loose.txt']);
    const shown = JSON.parse((await cli(['show', a.id, '--json'])).stdout);
    assert.equal(shown.landing.kind, 'apply');
    assert.equal(shown.landing.commit, null);

    const b = await agent(COMMIT('README.md', 'agent readme'));
    writeFileSync(join(sb.repo, 'README.md'), 'mine\n');
    const refused = await cli(['apply', b.id]);
    assert.equal(refused.code, 1);
    assertOneSentence(refused.stderr);
    assert.match(refused.stderr, /overwrite your local changes to README\.md.*nothing was changed/);
    assert.equal(readFileSync(join(sb.repo, 'README.md'), 'utf8'), 'mine\n');
  });

  it('pr: no remote is exit 1; pushes to a bare remote and opens the PR through gh; without gh prints the compare page', async () => {
    const a = await agent(COMMIT('pr.txt', 'pr'), 'PR title');
    const none = await cli(['pr', a.id]);
    assert.equal(none.code, 1);
    assertOneSentence(none.stderr);
    assert.match(none.stderr, /no remote to push to.*nothing was pushed/);

    const bare = join(sb.root, 'remote.git');
    git(sb.root, 'init', '-q', '--bare', bare);
    git(sb.repo, 'remote', 'add', 'origin', bare);
    const bin = join(sb.root, 'bin');
    mkdirSync(bin);
    const log = join(sb.root, 'gh.log');
    fakeGh(bin, log);
    const withGh = await cli(['pr', a.id, '--draft'], { ...sb.env, PATH: `${bin}:${sb.env.PATH}` });
    assert.equal(withGh.code, 0, withGh.stderr);
    assert.match(withGh.stdout, /pull request: https:\/\/github.com\/o\/r\/pull\/12/);
    assert.equal(git(bare, 'rev-parse', a.branch), git(sb.repo, 'rev-parse', a.branch));
    assert.deepEqual(ghCalls(log), [
      ['auth', 'status'],
      ['pr', 'create', '--head', a.branch, '--base', 'main', '--title', 'PR title', '--body', `Work of Paddock agent ${a.id} (branch ${a.branch}).`, '--draft'],
    ]);
    assert.equal(JSON.parse((await cli(['show', a.id, '--json'])).stdout).landing.url, 'https://github.com/o/r/pull/12');

    // No gh: the remote looks like GitHub (its pushes go to the bare repository) and the compare page is printed.
    const b = await agent(COMMIT('pr2.txt', 'pr2'));
    git(sb.repo, 'remote', 'set-url', 'origin', 'https://github.com/o/r.git');
    git(sb.repo, 'remote', 'set-url', '--push', 'origin', bare);
    const fallback = await cli(['pr', b.id]);
    assert.equal(fallback.code, 0, fallback.stderr);
    assert.match(fallback.stdout, new RegExp(`open the pull request here: https://github.com/o/r/compare/main\\.\\.\\.paddock%2F${b.id}\\?expand=1`));
    assert.equal((await cli(['pr', b.id, '--remote', 'nope'])).code, 2);

    // A server on a port of its own (bug 92, review): gh cannot be told the port, so it is not run; the compare page keeps the port, and why is said.
    const c = await agent(COMMIT('pr3.txt', 'pr3'));
    git(sb.repo, 'remote', 'set-url', 'origin', 'https://github.example.com:8443/o/r.git');
    const ported = await cli(['pr', c.id], { ...sb.env, PATH: `${bin}:${sb.env.PATH}` });
    assert.equal(ported.code, 0, ported.stderr);
    assert.match(ported.stdout, new RegExp(`open the pull request here: https://github.example.com:8443/o/r/compare/main\\.\\.\\.paddock%2F${c.id}\\?expand=1\ngh was not used: it cannot reach a server on a port of its own \\(https://github.example.com:8443\\)\\.\n$`));
    assert.equal(ghCalls(log).length, 2, 'gh was not run');
  });

  it('pr refuses a title gh would refuse or GitHub would mangle (empty, blank, a line break, a control character, too long) before anything is pushed', async () => {
    const a = await agent(COMMIT('title.txt', 't'));
    const bare = join(sb.root, 'remote.git');
    git(sb.root, 'init', '-q', '--bare', bare);
    git(sb.repo, 'remote', 'add', 'origin', bare);
    for (const title of ['', '   ', 'two\nlines', 'bell\x07', 'x'.repeat(257)]) {
      const refused = await cli(['pr', a.id, '--title', title]);
      assert.equal(refused.code, 2, JSON.stringify(title));
      assertOneSentence(refused.stderr);
      assert.match(refused.stderr, /title/);
    }
    assert.equal(git(bare, 'branch', '--list'), '', 'nothing was pushed');
  });

  it('merge refuses an empty or blank --message before anything lands, as git commit refuses one (bug 55)', async () => {
    const a = await agent(COMMIT('msg.txt', 'm'));
    const old = mainCommit('m.txt', 'main');
    for (const message of ['', '   ', '\n\t\n']) {
      for (const how of [[], ['--squash']]) {
        const refused = await cli(['merge', a.id, ...how, '--message', message]);
        assert.equal(refused.code, 2, JSON.stringify(message));
        assertOneSentence(refused.stderr);
        assert.match(refused.stderr, /commit message needs text/);
      }
    }
    assert.equal(git(sb.repo, 'rev-parse', 'main'), old, 'nothing landed');
    const landed = await cli(['merge', a.id, '--squash', '--message', 'Add msg.txt']);
    assert.equal(landed.code, 0, landed.stderr);
    assert.equal(git(sb.repo, 'log', '-1', '--format=%B', 'main'), 'Add msg.txt');
  });

  // Bug: an agent started from `origin/develop` with no local `develop` could not be proposed or
  // updated: both refused (exit 2) with "say which branch … with --into", an option neither has.
  it('pr and update of an agent based on a remote branch with no local one: into that remote branch, from it', async () => {
    const bare = join(sb.root, 'remote.git');
    git(sb.root, 'init', '-q', '--bare', bare);
    git(sb.repo, 'remote', 'add', 'upstream', bare);
    git(sb.repo, 'push', '-q', 'upstream', 'main:develop');
    git(sb.repo, 'fetch', '-q', 'upstream');
    const res = await cli(['start', '--json', '--base', 'upstream/develop', '--', 'sh', '-c', COMMIT('dev.txt', 'dev')]);
    assert.equal(res.code, 0, res.stderr);
    const a = JSON.parse(res.stdout);
    await sb.waitEnded(a.id);
    const bin = join(sb.root, 'bin');
    mkdirSync(bin);
    const log = join(sb.root, 'gh.log');
    fakeGh(bin, log);
    const pr = await cli(['pr', a.id], { ...sb.env, PATH: `${bin}:${sb.env.PATH}` });
    assert.equal(pr.code, 0, pr.stderr);
    assert.equal(git(bare, 'rev-parse', a.branch), git(sb.repo, 'rev-parse', a.branch), 'pushed to the base\'s remote');
    assert.deepEqual(ghCalls(log)[1].slice(0, 6), ['pr', 'create', '--head', a.branch, '--base', 'develop']);
    assert.equal(JSON.parse((await cli(['show', a.id, '--json'])).stdout).landing.into, 'upstream/develop');

    // Someone else moves develop on the remote; update brings in the remote branch as fetched.
    const other = join(sb.root, 'other');
    git(sb.root, 'clone', '-q', '-b', 'develop', bare, other);
    writeFileSync(join(other, 'theirs.txt'), 'theirs\n');
    git(other, 'add', '-A');
    git(other, 'commit', '-qm', 'theirs');
    git(other, 'push', '-q', 'origin', 'develop');
    git(sb.repo, 'fetch', '-q', 'upstream');
    const update = await cli(['update', a.id]);
    assert.equal(update.code, 0, update.stderr);
    assert.match(update.stdout, /upstream\/develop/);
    assert.equal(readFileSync(join(a.worktree, 'theirs.txt'), 'utf8'), 'theirs\n');
    assert.equal(git(sb.repo, 'branch', '--list', 'develop'), '', 'no local develop was made');

    // A base that names no branch at all: one sentence that does not offer an option pr lacks.
    git(sb.repo, 'tag', 'v1', 'main');
    const t = JSON.parse((await cli(['start', '--json', '--base', 'v1', '--', 'sh', '-c', COMMIT('t.txt', 't')])).stdout);
    await sb.waitEnded(t.id);
    const tagged = await cli(['pr', t.id]);
    assert.equal(tagged.code, 2);
    assertOneSentence(tagged.stderr);
    assert.doesNotMatch(tagged.stderr, /--into/);
  });

  it('forget refuses an agent not cleaned up; forgets a cleaned one; prune --snapshots deletes refs after listing them', async () => {
    const a = await agent('true');
    const b = await agent('true');
    const refused = await cli(['forget', a.id]);
    assert.equal(refused.code, 2);
    assertOneSentence(refused.stderr);
    for (const j of [a, b]) assert.equal((await cli(['cleanup', j.id, '--yes'])).code, 0);
    const forgot = await cli(['forget', a.id]);
    assert.equal(forgot.code, 0, forgot.stderr);
    assert.equal((await cli(['show', a.id])).code, 2, 'gone from the store');
    assert.ok(git(sb.repo, 'for-each-ref', `refs/paddock/snapshots/${a.id}`).length > 0, 'forget keeps the snapshot');
    const noYes = await cli(['prune', '--snapshots']);
    assert.equal(noYes.code, 2);
    assert.match(noYes.stdout, new RegExp(`${b.id}.*deletes refs/paddock/snapshots/${b.id}`));
    const pruned = await cli(['prune', '--snapshots', '--yes']);
    assert.equal(pruned.code, 0, pruned.stderr);
    assert.match(pruned.stdout, /Removed 1 agent\(s\) from the list, deleted 1 snapshot ref/);
    assert.equal(git(sb.repo, 'for-each-ref', `refs/paddock/snapshots/${b.id}`), '');
    assert.equal((await cli(['prune', '--older-than', 'x'])).code, 2);
  });
});
