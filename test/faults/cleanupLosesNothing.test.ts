/**
 * Issue 11, whole system: cleanup loses nothing. Each case starts a real agent
 * with the real CLI (`paddock start -- sh -c SCRIPT`) that does the damage
 * itself in its worktree and exits; then `paddock cleanup ID --yes` and
 * `paddock restore ID --to DIR`, and the restored tree must equal the
 * worktree's last state byte for byte. No secret of the agent's environment
 * may reach a file of the store.
 */
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinatorSandbox, git, useCoordinatorSandbox } from '../unit/core/coordinator/coordinatorFixture';
import { assertSameState, treeState, type State } from '../unit/core/git/treeState';
import { sleep } from '../unit/core/worker/fixtures';
import { allFileContents, CLI, cli, type CliResult, endProcessesOfHome, isAlive, isRoot } from './faultKit';
import { FILLER, fillDisk, freeDisk } from '../unit/core/store/fullDisk';

const KEY = 'sk-ant-api03-cleanupKey0123456789abcdef';
const TOKEN = 'cleanup-foo-token-5e1d7a';
const IGNORES = '.env\nbuild/\nnode_modules/\nignored/\n';

interface Run {
  run(args: string[]): CliResult;
  home: string;
  repo: string;
  root: string;
}

/** The agent's whole record as `paddock show ID --json` prints it. */
function show(r: Run, id: string): { worktree: string; cleanup: Record<string, unknown> | null; evidence: { summary: Record<string, unknown> } | null; lifecycle: { state: string } } {
  const res = r.run(['show', id, '--json']);
  assert.equal(res.code, 0, res.stderr);
  return JSON.parse(res.stdout);
}

/** Starts `sh -c script` as an agent with the real CLI and waits until it has ended. */
async function agent(r: Run, script: string): Promise<{ id: string; worktree: string }> {
  const res = r.run(['start', '--repo', r.repo, '--', 'sh', '-c', script]);
  assert.equal(res.code, 0, res.stderr);
  const id = res.stdout.trim();
  const deadline = Date.now() + 30_000;
  for (;;) {
    const job = show(r, id);
    if (job.lifecycle.state === 'completed') return { id, worktree: job.worktree };
    assert.notEqual(job.lifecycle.state, 'failed', `the agent failed: ${JSON.stringify(job.lifecycle)}`);
    if (Date.now() > deadline) assert.fail(`the agent did not end: ${job.lifecycle.state}`);
    await sleep(100);
  }
}

function cleanupOk(r: Run, id: string, ...args: string[]): void {
  const res = r.run(['cleanup', id, '--yes', ...args]);
  assert.equal(res.code, 0, `cleanup: ${res.stderr}`);
}

/** `paddock restore ID --to DIR`; returns DIR. */
function restore(r: Run, id: string, name = `restored-${id}`): string {
  const to = join(r.root, name);
  const res = r.run(['restore', id, '--to', to]);
  assert.equal(res.code, 0, `restore: ${res.stderr}`);
  return to;
}

/** Cleanup, then restore: the restored tree equals `before` (the worktree's state just before cleanup). */
function roundTrip(r: Run, id: string, before: State, skip?: (rel: string) => boolean, ...args: string[]): string {
  cleanupOk(r, id, ...args);
  const to = restore(r, id);
  assertSameState(treeState(to, skip), before);
  assertNoSecretInStore(r.home);
  return to;
}

function assertNoSecretInStore(home: string): void {
  const files = allFileContents(home);
  assert.ok(files.length > 3, 'the store has files to check');
  for (const { path, text } of files) for (const secret of [KEY, TOKEN]) assert.ok(!text.includes(secret), `${path} holds a secret in clear`);
}

/** git as the test's user on a repository another user may own (the permission cases run as nobody). */
function anyGit(cwd: string, ...args: string[]): string {
  return git(cwd, '-c', 'safe.directory=*', ...args);
}

function isWorktreeOf(repo: string, worktree: string): boolean {
  return anyGit(repo, 'worktree', 'list', '--porcelain').split('\n').includes(`worktree ${worktree}`);
}

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

describe('faults: cleanup on a full disk keeps the worktree and the good evidence (issue 11, case 6)', function () {
  this.timeout(180_000);
  let sb: CoordinatorSandbox | undefined;
  let mounted = false;
  beforeEach(function () {
    if (!isRoot()) this.skip(); // mounting a tmpfs needs root
  });
  afterEach(async () => {
    if (mounted && sb) execFileSync('umount', ['-l', sb.home]);
    mounted = false;
    await sb?.dispose();
    sb = undefined;
  });

  // Found a real bug (fixed): the patch was written with `diff-tree --output`, which exits 0 on a full
  // disk; the verification caught the short patch but the person read "the evidence patch does not
  // reproduce the snapshot exactly" instead of "no space left".
  it('a patch that does not fit: stops at capturing in one sentence, worktree untouched, earlier evidence kept; space back → round trip', async () => {
    const s = new CoordinatorSandbox();
    sb = s;
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=32m,mode=0700', 'tmpfs', s.home]);
    mounted = true;
    const env = { ...s.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', ANTHROPIC_API_KEY: KEY };
    const r: Run = { run: (args) => cli(args, env, s.repo), home: s.home, repo: s.repo, root: s.root };
    const { id, worktree } = await agent(r, 'head -c 3000000 /dev/urandom > big.bin && echo e >> README.md');

    // A first attempt captures (a 4 MB patch) and stops at removing: good evidence on record.
    const holder = s.spawnOwned('sleep', ['600'], worktree);
    assert.equal(r.run(['cleanup', id, '--yes']).code, 1);
    assert.equal(show(r, id).cleanup!.stage, 'removing');
    const evidenceDir = join(s.home, 'jobs', id, 'evidence');
    const evidenceBefore = treeState(evidenceDir);
    const snapshotBefore = git(s.repo, 'rev-parse', `refs/paddock/snapshots/${id}`);

    // More work appears; the disk fills; the next attempt's patch does not fit.
    execFileSync('sh', ['-c', 'head -c 3000000 /dev/urandom > more.bin'], { cwd: worktree });
    const state = treeState(worktree);
    fillDisk(s.home);
    // Room for the record's own small writes, not for a patch of 8 MB.
    truncateSync(join(s.home, FILLER), statSync(join(s.home, FILLER)).size - 1024 * 1024);
    process.kill(-holder, 'SIGKILL');
    while (isAlive(holder)) await sleep(20);
    const full = r.run(['cleanup', id, '--yes']);
    assert.equal(full.code, 1);
    assert.equal(full.stderr.trim().split('\n').length, 1, full.stderr);
    assert.match(full.stderr, /incomplete at capturing: .*no space left/i);
    assert.equal(show(r, id).cleanup!.stage, 'capturing');
    assertSameState(treeState(worktree), state);
    assert.ok(isWorktreeOf(s.repo, worktree), 'still a registered worktree');
    assertSameState(treeState(evidenceDir), evidenceBefore);
    assert.equal(git(s.repo, 'rev-parse', `refs/paddock/snapshots/${id}`), snapshotBefore, 'the earlier snapshot is kept');

    freeDisk(s.home);
    cleanupOk(r, id);
    assertSameState(treeState(restore(r, id)), state);
    assertNoSecretInStore(s.home);
  });
});

/** Who runs the CLI in the permission cases: as root, nobody (root reads and deletes anything). */
const NOBODY = 65534;

describe('faults: unreadable and undeletable folders stop cleanup before anything is removed (issue 11, case 7)', function () {
  this.timeout(180_000);
  let root: string | undefined;
  let r!: Run;
  let uid: number | undefined;

  beforeEach(function () {
    uid = isRoot() ? NOBODY : undefined;
    root = mkdtempSync('/tmp/pdn-');
    chmodSync(root, 0o755);
    if (uid !== undefined) chownSync(root, uid, uid);
    const env = {
      PATH: process.env.PATH,
      HOME: join(root, 'h'),
      LANG: 'C.UTF-8',
      TERM: 'xterm-256color',
      PADDOCK_HOME: join(root, 'home'),
      PADDOCK_RUNTIME_DIR: join(root, 'r'),
      // CI runs the suites again with the portable (ps/lsof) backend: every process of a test uses the same one.
      ...(process.env.PADDOCK_PROCESS_BACKEND ? { PADDOCK_PROCESS_BACKEND: process.env.PADDOCK_PROCESS_BACKEND } : {}),
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_NOSYSTEM: '1',
      ANTHROPIC_API_KEY: KEY,
    };
    const as = uid === undefined ? {} : { uid, gid: uid };
    const sh = (cmd: string) => spawnSync('sh', ['-c', cmd], { cwd: root, env, encoding: 'utf8', ...as });
    const probe = sh(`test -r ${CLI} && node -e 0 && mkdir -p h repo && cd repo && git init -q -b main && echo hi > README.md && git add . && git commit -q -m init`);
    if (probe.status !== 0) {
      console.log(`      skipped: cannot run the CLI as uid ${uid}: ${probe.stderr.trim()}`);
      this.skip();
    }
    const repo = join(root, 'repo');
    r = {
      run: (args) => {
        const res = spawnSync(process.execPath, [CLI, ...args], { env, cwd: repo, encoding: 'utf8', timeout: 60_000, ...as });
        return { code: res.status, stdout: res.stdout ?? '', stderr: res.stderr ?? '' };
      },
      home: env.PADDOCK_HOME,
      repo,
      root,
    };
  });
  afterEach(async () => {
    if (!root) return;
    // A cleanup that stopped leaves a retry to a background coordinator (`paddock coordinate --until-idle`),
    // which goes on writing into the store: end it (and any worker) before deleting.
    await endProcessesOfHome(join(root, 'home'));
    // Agents and workers ran as `uid`: make everything deletable, then let root (or the owner) delete.
    spawnSync('sh', ['-c', `chmod -R u+rwx ${root} 2>/dev/null`], uid === undefined ? {} : { uid, gid: uid });
    rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    root = undefined;
  });

  it('an unreadable folder: stops awaiting consent, the worktree and its registration intact; after chmod 755 it completes and d/f comes back', async () => {
    const { id, worktree } = await agent(r, 'mkdir d && echo precious > d/f && chmod 000 d');
    const res = r.run(['cleanup', id, '--yes']);
    assert.equal(res.code, 1);
    assert.equal(res.stderr.trim().split('\n').length, 1, res.stderr);
    assert.match(res.stderr, /stopped before removing anything: .*d \(cannot be read\)/);
    const job = show(r, id);
    assert.equal(job.cleanup!.stage, 'capturing');
    assert.equal(job.cleanup!.awaitingConsent, true);
    assert.equal(job.cleanup!.needsAttention, true);
    assert.match(String(job.cleanup!.lastError), /d \(cannot be read\)/);
    assert.ok(existsSync(join(worktree, '.git')) && isWorktreeOf(r.repo, worktree), 'still a registered git worktree');
    chmodSync(join(worktree, 'd'), 0o755);
    const before = treeState(worktree);
    const to = roundTrip(r, id, before);
    assert.equal(readFileSync(join(to, 'd', 'f'), 'utf8'), 'precious\n');
  });

  it('an undeletable folder (mode 555 holding a file): removing fails before git is asked, the worktree intact; after chmod it completes', async () => {
    const { id, worktree } = await agent(r, 'mkdir ro && echo x > ro/f && chmod 555 ro && echo w > w.txt');
    const res = r.run(['cleanup', id, '--yes']);
    assert.equal(res.code, 1);
    assert.match(res.stderr, /incomplete at removing: cannot delete what is in ro/);
    assert.equal(show(r, id).cleanup!.stage, 'removing');
    assert.ok(existsSync(join(worktree, '.git')) && isWorktreeOf(r.repo, worktree), 'still a registered git worktree');
    assert.equal(anyGit(worktree, 'status', '--porcelain'), '?? ro/\n?? w.txt');
    chmodSync(join(worktree, 'ro'), 0o755);
    roundTrip(r, id, treeState(worktree));
  });
});
