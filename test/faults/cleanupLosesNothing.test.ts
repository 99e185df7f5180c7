/**
 * Issue 11, whole system: cleanup loses nothing. Each case starts a real agent
 * with the real CLI (`paddock start -- sh -c SCRIPT`) that does the damage
 * itself in its worktree and exits; then `paddock cleanup ID --yes` and
 * `paddock restore ID --to DIR`, and the restored tree must equal the
 * worktree's last state byte for byte. No secret of the agent's environment
 * may reach a file of the store.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinatorSandbox, git, useCoordinatorSandbox } from '../unit/core/coordinator/coordinatorFixture';
import { assertSameState, treeState } from '../unit/core/git/treeState';
import { sleep } from '../unit/core/worker/fixtures';
import { cli, isAlive } from './faultKit';
import { agent, assertNoSecretInStore, cleanupOk, IGNORES, isWorktreeOf, KEY, restore, roundTrip, type Run, show, TOKEN } from './cleanupKit';

describe('faults: cleanup loses nothing (issue 11)', function () {
  this.timeout(180_000);
  let sb!: CoordinatorSandbox;
  let r!: Run;
  useCoordinatorSandbox((fresh) => {
    sb = fresh;
    writeFileSync(join(sb.repo, '.gitignore'), IGNORES);
    git(sb.repo, 'add', '.gitignore');
    git(sb.repo, 'commit', '-q', '-m', 'ignores');
    const env = { ...sb.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', ANTHROPIC_API_KEY: KEY, FOO_TOKEN: TOKEN };
    r = { run: (args) => cli(args, env, sb.repo), home: sb.home, repo: sb.repo, root: sb.root };
  });

  it('1. a nested repository the agent made: its commits, edits and untracked files come back', async () => {
    const { id, worktree } = await agent(r, 'git init -q inner && cd inner && echo x > x.txt && git add x.txt && git commit -q -m x && echo more >> x.txt && echo y > y.txt');
    const before = treeState(worktree);
    const to = roundTrip(r, id, before);
    assert.equal(git(join(to, 'inner'), 'log', '--format=%s'), 'x');
    assert.equal(git(join(to, 'inner'), 'status', '--porcelain'), 'M x.txt\n?? y.txt');
  });

  // Found a real bug (fixed): restore chmod-ed the submodule's restored git dir (a folder where the
  // worktree had a `.git` file) with the file's 0644, so its owner could no longer enter it.
  it('2. a submodule: its own commit and edits come back, its git dir usable', async () => {
    const sub = join(sb.root, 'sub');
    mkdirSync(sub);
    git(sub, 'init', '-q', '-b', 'main');
    writeFileSync(join(sub, 'lib.txt'), 'lib\n');
    git(sub, 'add', '.');
    git(sub, 'commit', '-q', '-m', 'lib');
    git(sb.repo, '-c', 'protocol.file.allow=always', 'submodule', '--quiet', 'add', sub, 'vendor/lib');
    git(sb.repo, 'commit', '-q', '-m', 'submodule');
    const { id, worktree } = await agent(
      r,
      'git -c protocol.file.allow=always submodule --quiet update --init && cd vendor/lib && echo new > new.txt && git add new.txt && git commit -q -m inside && echo edit >> lib.txt && echo u > u.txt',
    );
    const inSub = (rel: string) => rel === 'vendor/lib/.git' || rel.startsWith('vendor/lib/.git/');
    const before = treeState(worktree, inSub);
    const to = roundTrip(r, id, before, inSub);
    const restoredSub = join(to, 'vendor', 'lib');
    // Its git dir back in the restored worktree's, named by a .git file (bug 158), and its owner can enter it (bug 18).
    const subGitDir = git(restoredSub, 'rev-parse', '--absolute-git-dir');
    assert.ok(lstatSync(join(restoredSub, '.git')).isFile() && /\/worktrees\/[^/]+\/modules\/vendor\/lib$/.test(subGitDir) && (statSync(subGitDir).mode & 0o700) === 0o700, subGitDir);
    assert.equal(git(restoredSub, 'log', '--format=%s'), 'inside\nlib');
    assert.equal(git(restoredSub, 'status', '--porcelain'), 'M lib.txt\n?? u.txt');
  });

  it('3. assume-unchanged and skip-worktree files edited afterwards', async () => {
    writeFileSync(join(sb.repo, 'a.txt'), 'a\n');
    writeFileSync(join(sb.repo, 's.txt'), 's\n');
    git(sb.repo, 'add', '.');
    git(sb.repo, 'commit', '-q', '-m', 'flags');
    const { id, worktree } = await agent(r, 'git update-index --assume-unchanged a.txt && git update-index --skip-worktree s.txt && echo A >> a.txt && echo S > s.txt');
    assert.equal(git(worktree, 'status', '--porcelain'), '', 'git itself shows nothing');
    const to = roundTrip(r, id, treeState(worktree));
    assert.equal(readFileSync(join(to, 's.txt'), 'utf8'), 'S\n');
  });

  it('4. ignored files, empty folders, a FIFO, odd names and symlinks come back; node_modules is dropped and counted', async () => {
    const { id, worktree } = await agent(
      r,
      [
        'echo SECRET=planted > .env && chmod 600 .env',
        'mkdir -p build empty/inner node_modules/pkg && head -c 3000 /dev/urandom > build/out.bin && echo m > node_modules/pkg/i.js',
        'printf n > "new\nline.txt" && echo s > "with space.txt" && mkfifo pipe && ln -s /usr/share outside && ln -s nowhere dangling',
        'printf "#!/bin/sh\\n" > run.sh && chmod 755 run.sh',
      ].join(' && '),
    );
    const regenerable = (rel: string) => rel === 'node_modules' || rel.startsWith('node_modules/');
    const before = treeState(worktree, regenerable);
    assert.ok(before.has('pipe') && before.has('new\nline.txt') && before.has('empty/inner'));
    roundTrip(r, id, before, regenerable);
    const summary = show(r, id).evidence!.summary as { regenerable: { files: number; roots: string[] }; lostCount: number };
    assert.equal(summary.regenerable.files, 1);
    assert.deepEqual(summary.regenerable.roots, ['node_modules']);
    assert.equal(summary.lostCount, 0);
  });

  // Found a real bug (fixed): a nested repository inside an ignored folder (a git dependency in
  // build/, vendor caches) made `git add` refuse the exclude pathspec ("paths are ignored") and
  // stage nothing; every cleanup stopped at capturing.
  it('4b. a nested repository inside an ignored folder', async () => {
    const { id, worktree } = await agent(r, 'mkdir -p ignored/deep && cd ignored/deep && git init -q && echo q > q.txt && git add q.txt && git commit -q -m q && echo dirty >> q.txt');
    const to = roundTrip(r, id, treeState(worktree));
    assert.equal(git(join(to, 'ignored', 'deep'), 'status', '--porcelain'), 'M q.txt');
  });

  it('5. a commit dropped by reset --hard stays reachable from the snapshot, also with --delete-branch, through gc', async () => {
    const { id, worktree } = await agent(r, 'echo one > one.txt && git add . && git commit -q -m one && echo two > two.txt && git add . && git commit -q -m two && git reset -q --hard HEAD~1');
    const dropped = git(sb.repo, 'rev-parse', `paddock/${id}@{1}`);
    assert.equal(git(sb.repo, 'log', '-1', '--format=%s', dropped), 'two');
    const before = treeState(worktree);
    cleanupOk(r, id, '--delete-branch');
    assert.equal(git(sb.repo, 'branch', '--list', `paddock/${id}`), '', 'the branch was deleted as asked');
    git(sb.repo, 'reflog', 'expire', '--expire=now', '--all');
    git(sb.repo, 'gc', '-q', '--prune=now');
    git(sb.repo, 'merge-base', '--is-ancestor', dropped, `refs/paddock/snapshots/${id}`);
    assert.equal(git(sb.repo, 'show', `${dropped}:two.txt`), 'two');
    assertSameState(treeState(restore(r, id)), before);
    assertNoSecretInStore(r.home);
  });

  it('8. a removal cut half-way (.git and the registration gone, the folder left): cleanup completes, nothing lost', async () => {
    const { id, worktree } = await agent(r, 'echo w > w.txt && echo e >> README.md && mkdir -p build empty && echo b > build/b');
    const before = treeState(worktree);
    // A holder stops the first attempt after the capture, as a crash after it would.
    const holder = sb.spawnOwned('sleep', ['600'], worktree);
    const first = r.run(['cleanup', id, '--yes']);
    assert.equal(first.code, 1);
    assert.equal(show(r, id).cleanup!.stage, 'removing', first.stderr);
    process.kill(-holder, 'SIGKILL');
    while (isAlive(holder)) await sleep(20);
    // What git leaves when its removal stops half-way: no .git, no registration, the folder.
    rmSync(join(worktree, '.git'));
    git(sb.repo, 'worktree', 'prune');
    assert.equal(isWorktreeOf(sb.repo, worktree), false);
    const again = r.run(['cleanup', id, '--yes']);
    assert.equal(again.code, 0, again.stderr);
    assert.doesNotMatch(again.stdout + again.stderr, /not a git repository/i);
    assert.equal(existsSync(worktree), false);
    assertSameState(treeState(restore(r, id)), before);
  });

  it('8b. a half-removed worktree changed after the capture is left in place', async () => {
    const { id, worktree } = await agent(r, 'echo w > w.txt');
    const holder = sb.spawnOwned('sleep', ['600'], worktree);
    assert.equal(r.run(['cleanup', id, '--yes']).code, 1);
    process.kill(-holder, 'SIGKILL');
    while (isAlive(holder)) await sleep(20);
    rmSync(join(worktree, '.git'));
    git(sb.repo, 'worktree', 'prune');
    writeFileSync(join(worktree, 'later.txt'), 'written after the capture\n');
    const again = r.run(['cleanup', id, '--yes']);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /later\.txt/);
    assert.equal(readFileSync(join(worktree, 'later.txt'), 'utf8'), 'written after the capture\n');
  });

  // Found a real bug (fixed): `--anyway` without `--archive-limit` went back to the setting's limit,
  // so what was dropped was not what the person had been told (with a lower setting, more).
  it('9. over the archive limit: stops naming the file; --anyway drops just it (listed as lost); the rest comes back', async () => {
    const { id, worktree } = await agent(r, 'head -c 2100000 /dev/urandom > .env && echo keep > keep.txt && mkdir build && echo small > build/small');
    const before = treeState(worktree, (rel) => rel === '.env');
    const stopped = r.run(['cleanup', id, '--yes', '--archive-limit', '1']);
    assert.equal(stopped.code, 1);
    assert.match(stopped.stderr, /\.env \(2\.0 MB\)/);
    assert.equal(stopped.stderr.trim().split('\n').length, 1, stopped.stderr);
    const job = show(r, id);
    assert.equal(job.cleanup!.awaitingConsent, true);
    assert.ok(existsSync(join(worktree, '.env')) && isWorktreeOf(sb.repo, worktree), 'nothing was removed');
    cleanupOk(r, id, '--anyway');
    const summary = show(r, id).evidence!.summary as { lost: { path: string; why: string }[]; lostCount: number };
    assert.deepEqual(summary.lost.map((l) => [l.path, l.why]), [['.env', 'too-big']]);
    assertSameState(treeState(restore(r, id)), before);
  });

  // Found a real bug (fixed): the coordinator's lock folders (coordinator/, coordinator/ops/, each
  // lock and its owner file) were made with the default 0755/0644, readable by every user.
  it('10. after a full run every file of the store is 0600 and every folder 0700, lock folders too', async () => {
    const home = join(sb.root, 'fresh-store');
    const env = { ...sb.env, PADDOCK_HOME: home, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
    const own: Run = { run: (args) => cli(args, env, sb.repo), home, repo: sb.repo, root: sb.root };
    const { id, worktree } = await agent(own, 'echo w > w.txt && mkdir -p build empty && echo b > build/b && git init -q inner');
    roundTrip(own, id, treeState(worktree));
    const wrong: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const p = join(dir, name);
        const st = lstatSync(p);
        const mode = st.mode & 0o777;
        if (st.isSymbolicLink()) {
          // A held lock: a link's own mode means nothing; it must name a lock folder beside it, checked as a folder here.
          if (!/^[^/]+\.lock\.[0-9a-f]{32}\.held$/.test(readlinkSync(p))) wrong.push(`${p} -> ${readlinkSync(p)}`);
        } else if (st.isDirectory()) {
          if (mode !== 0o700) wrong.push(`${p} ${mode.toString(8)}`);
          walk(p);
        } else if (mode !== 0o600 && !(mode === 0o700 && p.endsWith(join('bin', 'paddock')))) {
          // Files are 0600; the one executable, the agent's `paddock` launcher, is 0700.
          wrong.push(`${p} ${mode.toString(8)}`);
        }
      }
    };
    assert.equal(statSync(home).mode & 0o777, 0o700);
    walk(home);
    assert.ok(existsSync(join(home, 'coordinator', 'ops')), 'the operation locks were used');
    assert.deepEqual(wrong, []);
  });

  // Found real bugs (fixed, 72 and 73): a commit only a worktree's own ref named was left
  // unreachable, and a rebase stopped on a conflict came back finished wrongly (HEAD's version staged,
  // its todo list gone).
  it('11. a rebase stopped on a conflict and a commit only refs/worktree names: both come back, and rebase --continue finishes', async () => {
    const script = [
      'git checkout -q -b theirs HEAD && echo theirs > README.md && git commit -q -am theirs && git checkout -q -',
      'echo ours > README.md && git commit -q -am ours && echo more > more.txt && git add more.txt && git commit -q -m more',
      'git update-ref refs/worktree/keep $(git commit-tree -p HEAD -m kept HEAD^{tree})',
      '(git rebase theirs >/dev/null 2>&1; true)',
    ].join(' && ');
    const { id, worktree } = await agent(r, script);
    const kept = git(worktree, 'rev-parse', 'refs/worktree/keep');
    const status = git(worktree, 'status', '--porcelain=v2', '--branch');
    assert.match(status, /^u UU .* README\.md$/m, 'the fixture is a rebase stopped on a conflict');
    const before = treeState(worktree);
    cleanupOk(r, id);
    git(sb.repo, 'reflog', 'expire', '--expire=now', '--all');
    git(sb.repo, 'gc', '-q', '--prune=now');
    git(sb.repo, 'merge-base', '--is-ancestor', kept, `refs/paddock/snapshots/${id}`);
    const to = restore(r, id);
    assertSameState(treeState(to), before);
    assert.equal(git(to, 'status', '--porcelain=v2', '--branch'), status);
    assert.equal(git(to, 'rev-parse', 'refs/worktree/keep'), kept);
    writeFileSync(join(to, 'README.md'), 'resolved\n');
    git(to, 'add', 'README.md');
    const going = spawnSync('git', ['-c', 'core.editor=true', 'rebase', '--continue'], { cwd: to, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
    assert.equal(going.status, 0, going.stderr);
    assert.equal(git(to, 'log', '--format=%s', '-3'), 'more\nours\ntheirs');
  });

  // Found a real bug (fixed, 74): git worktree repair, run to link the agent back, gave it the
  // sibling's registration, and the removal then deleted the sibling's git dir.
  it("12. an agent that pointed its .git at a running sibling's git dir: its cleanup keeps its own work and leaves the sibling linked", async () => {
    const sibling = r.run(['start', '--repo', r.repo, '--', 'sh', '-c', 'echo staged > s.txt && git add s.txt && echo ready > ready && sleep 600']);
    assert.equal(sibling.code, 0, sibling.stderr);
    const siblingId = sibling.stdout.trim();
    const siblingTree = show(r, siblingId).worktree;
    for (const deadline = Date.now() + 30_000; !existsSync(join(siblingTree, 'ready')); await sleep(100)) assert.ok(Date.now() < deadline, 'the sibling did not start');
    const siblingGitDir = git(siblingTree, 'rev-parse', '--absolute-git-dir');
    const { id, worktree } = await agent(r, `echo mine > w.txt && git add w.txt && git commit -q -m mine && echo dirty > d.txt && echo "gitdir: ${siblingGitDir}" > .git`);
    cleanupOk(r, id);
    assert.equal(git(siblingTree, 'rev-parse', '--absolute-git-dir'), siblingGitDir, "the sibling's git dir is still there");
    assert.equal(git(siblingTree, 'rev-parse', '--abbrev-ref', 'HEAD'), `paddock/${siblingId}`);
    assert.equal(git(siblingTree, 'status', '--porcelain'), 'A  s.txt\n?? ready');
    assert.ok(!isWorktreeOf(sb.repo, worktree), "the agent's own registration went with its worktree");
    const to = restore(r, id);
    assert.equal(git(to, 'log', '-1', '--format=%s'), 'mine');
    assert.equal(readFileSync(join(to, 'd.txt'), 'utf8'), 'dirty\n');
    assert.equal(r.run(['stop', siblingId]).code, 0);
    cleanupOk(r, siblingId);
  });

  // Found by review (fixed, 73): restore re-created the deleted branch at HEAD's commit and checked it
  // out, under a rebase that expects it at its old tip and HEAD detached: --continue then failed.
  it('13. a rebase stopped on a conflict, cleaned up with --delete-branch: the branch comes back at its old tip, HEAD detached, and rebase --continue finishes', async () => {
    const script = [
      'git checkout -q -b theirs HEAD && echo theirs > README.md && git commit -q -am theirs && git checkout -q -',
      'echo ours > README.md && git commit -q -am ours && echo more > more.txt && git add more.txt && git commit -q -m more',
      '(git rebase theirs >/dev/null 2>&1; true)',
    ].join(' && ');
    const { id, worktree } = await agent(r, script);
    const branch = `paddock/${id}`;
    const tip = git(worktree, 'rev-parse', branch);
    const status = git(worktree, 'status', '--porcelain=v2', '--branch');
    cleanupOk(r, id, '--delete-branch');
    assert.equal(spawnSync('git', ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], { cwd: sb.repo }).status, 1, 'the cleanup deleted the branch');
    const to = restore(r, id);
    assert.equal(git(to, 'status', '--porcelain=v2', '--branch'), status);
    assert.equal(git(sb.repo, 'rev-parse', branch), tip);
    writeFileSync(join(to, 'README.md'), 'resolved\n');
    git(to, 'add', 'README.md');
    const going = spawnSync('git', ['-c', 'core.editor=true', 'rebase', '--continue'], { cwd: to, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
    assert.equal(going.status, 0, going.stderr);
    assert.equal(git(to, 'rev-parse', '--abbrev-ref', 'HEAD'), branch);
    assert.equal(git(to, 'log', '--format=%s', '-3'), 'more\nours\ntheirs');
  });

  // Found by review (fixed, 72): a ref name with a no-break space made an inventory restore refused,
  // and a tag object or blob only a worktree ref named went at gc, taking every ref with it.
  it("14. the worktree's own refs: a name with a no-break space, a tag object whose tag is gone and a blob all come back after gc", async () => {
    const script = [
      'git update-ref "refs/worktree/note\u00a0x" HEAD',
      'git tag -a -m gone gone HEAD && git update-ref refs/worktree/atag $(git rev-parse refs/tags/gone) && git tag -d gone >/dev/null',
      'git update-ref refs/worktree/blob $(echo only here | git hash-object -w --stdin)',
      'git update-ref refs/worktree/keep $(git commit-tree -p HEAD -m kept HEAD^{tree})',
    ].join(' && ');
    const { id, worktree } = await agent(r, script);
    const refs = git(worktree, 'for-each-ref', '--format=%(refname) %(objectname) %(objecttype)', 'refs/worktree/');
    assert.equal(refs.split('\n').length, 4, refs);
    cleanupOk(r, id);
    git(sb.repo, 'reflog', 'expire', '--expire=now', '--all');
    git(sb.repo, 'gc', '-q', '--prune=now');
    const to = restore(r, id);
    assert.equal(git(to, 'for-each-ref', '--format=%(refname) %(objectname) %(objecttype)', 'refs/worktree/'), refs);
    assert.equal(git(to, 'cat-file', 'blob', 'refs/worktree/blob'), 'only here');
  });
});
