/**
 * Bug 169: a repository inside the agent's worktree with a linked worktree outside it. That
 * checkout's git data lives in the nested repository's `.git`, archived and removed with the agent's
 * worktree: nothing was said, git failed there afterwards, and a restore elsewhere (`--to`) left it
 * failing and said nothing. Now the summary names it and restore links it again, or says it did not.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { captureEvidence } from '../../../../src/core/git/evidence';
import { relinkOutsideWorktrees } from '../../../../src/core/git/outsideWorktrees';
import { restoreWorktree } from '../../../../src/core/git/restore';
import { removeWorktree } from '../../../../src/core/git/worktree';
import { Sandbox, git, useGitSandbox, write } from './gitTestUtil';

/** Each command the advice gives, run as given in bash. */
function runAdvice(advice: string): void {
  const commands = [...advice.matchAll(/`([^`]*printf [^`]*)`/g)].map((m) => m[1]!);
  assert.equal(commands.length, 2, advice);
  for (const command of commands) execFileSync('bash', ['-c', command]);
}

const WHO = ['-c', 'user.name=A', '-c', 'user.email=a@b.c'];

/** `git status` in `dir`, or git's error. */
function status(dir: string): string {
  try {
    return execFileSync('git', ['status', '--short', '--branch'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch (err) {
    return `FAILED ${String((err as { stderr: string }).stderr).trim()}`;
  }
}

describe('git: a nested repository\'s linked worktree outside the agent\'s worktree (bug 169)', function () {
  this.timeout(120_000);
  let sb!: Sandbox;
  let repo: string;
  let wt: string;
  let outside: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'README.md': 'hello\n' });
    wt = sb.agentWorktree(repo);
    const inner = path.join(wt, 'inner');
    git(wt, 'init', '-q', '-b', 'main', 'inner');
    write(inner, 'x.txt', 'x\n');
    git(inner, 'add', '.');
    git(inner, ...WHO, 'commit', '-q', '-m', 'x');
    outside = sb.path('outside');
    git(inner, 'worktree', 'add', '-q', '-b', 'side', outside);
    write(outside, 'c.txt', 'c\n');
    git(outside, 'add', 'c.txt');
    git(outside, ...WHO, 'commit', '-q', '-m', 'only on side');
    write(outside, 'x.txt', 'edited outside\n');
    write(outside, 'staged.txt', 'staged\n');
    git(outside, 'add', 'staged.txt');
  });

  async function capture(): Promise<string[]> {
    const ev = await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1' });
    await removeWorktree(repo, wt);
    return ev.summary.foreignWorktrees ?? [];
  }
  const restore = (target: string) => restoreWorktree({ repo, snapshotRef: 'refs/paddock/snapshots/job1', evidenceDir: sb.path('store', 'evidence'), target, branch: 'paddock/job1' });

  it('the cleanup\'s summary names it, and a restore elsewhere links it again as it was', async () => {
    const before = status(outside);
    const modes = [path.join(outside, '.git'), path.join(wt, 'inner', '.git', 'worktrees', 'outside', 'gitdir')].map((f) => statSync(f).mode & 0o777);
    const words = await capture();
    assert.equal(words.length, 1, 'named in the summary');
    assert.match(words[0]!, /^inner: a repository in the agent's worktree with a linked worktree outside it, .*outside \(on side\).*paddock restore/);
    assert.match(status(outside), /^FAILED/, 'git fails there until the restore');
    const result = await restore(sb.path('elsewhere'));
    assert.deepEqual(result.problems, []);
    assert.equal(status(outside), before, 'its branch, staged and unstaged changes as they were');
    assert.equal(git(outside, 'log', '--format=%s', '-1'), 'only on side');
    assert.match(git(path.join(sb.path('elsewhere'), 'inner'), 'worktree', 'list'), /outside\s+[0-9a-f]+ \[side\]/);
    const rewritten = [path.join(outside, '.git'), path.join(sb.path('elsewhere'), 'inner', '.git', 'worktrees', 'outside', 'gitdir')];
    assert.deepEqual(rewritten.map((f) => statSync(f).mode & 0o777), modes, 'the two linking files keep the mode git gave them, not the store\'s 0600');
  });

  it('restored at the agent\'s path it works again, with nothing to repair', async () => {
    const before = status(outside);
    await capture();
    const result = await restore(wt);
    assert.deepEqual(result.problems, []);
    assert.equal(status(outside), before);
  });

  it('one gone since the cleanup is said, not left unsaid', async () => {
    await capture();
    rmSync(outside, { recursive: true, force: true });
    const result = await restore(sb.path('elsewhere'));
    assert.equal(result.problems.length, 1);
    assert.match(result.problems[0]!, /^inner's linked worktree .*outside is gone/);
  });

  it('a capture that stops for consent names it too: consent is given knowing git will fail there', async () => {
    const base = git(repo, 'rev-parse', 'main');
    await assert.rejects(
      captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: base, branch: 'paddock/job1', archiveLimitBytes: 1 }),
      (err: Error) => /^Nothing was removed: .*Also: inner: a repository in the agent's worktree with a linked worktree outside it, .*outside \(on side\)/s.test(err.message),
    );
  });

  // Bug 169's review: only a checkout whose .git names this repository is its to speak for, and to repair.
  it('a copy (cp -r) of the person\'s repository, and a registration whose folder is gone, are neither named nor repaired', async () => {
    const person = sb.repo({ 'r.txt': 'r\n' }, 'R');
    const theirs = sb.path('W');
    git(person, 'worktree', 'add', '-q', '-b', 'wbranch', theirs);
    execFileSync('cp', ['-r', person, path.join(wt, 'copy')]);
    const stale = sb.path('stale');
    git(path.join(wt, 'inner'), 'worktree', 'add', '-q', '-b', 'stale', stale);
    rmSync(stale, { recursive: true, force: true });
    const dotGit = readFileSync(path.join(theirs, '.git'), 'utf8');
    const words = await capture();
    assert.equal(words.length, 1, `only inner's own linked worktree: ${words.join(' | ')}`);
    assert.doesNotMatch(status(theirs), /^FAILED/, 'git works in the person\'s worktree, as the summary says nothing of it');
    renameSync(person, sb.path('R-moved')); // the person moves their repository; W waits for their own `git worktree repair`
    const result = await restore(sb.path('elsewhere'));
    assert.deepEqual(result.problems, []);
    assert.equal(readFileSync(path.join(theirs, '.git'), 'utf8'), dotGit, 'the person\'s worktree still names their repository');
    assert.doesNotMatch(status(outside), /^FAILED/, 'inner\'s own is linked again');
  });

  it('a worktree reached through a symbolic link, its nested repository\'s linked worktree inside it: nothing to say at restore', async () => {
    const repo2 = sb.repo({ 'README.md': 'two\n' }, 'repo2');
    symlinkSync(sb.dir, sb.path('L'));
    const wt2 = sb.agentWorktree(repo2, path.join(sb.path('L'), 'wt2'));
    const inner = path.join(wt2, 'inner');
    git(wt2, 'init', '-q', '-b', 'main', 'inner');
    write(inner, 'x.txt', 'x\n');
    git(inner, 'add', '.');
    git(inner, ...WHO, 'commit', '-q', '-m', 'x');
    git(inner, 'worktree', 'add', '-q', '-b', 'side', '../inner2');
    const ev = await captureEvidence({ repo: repo2, worktree: wt2, jobId: 'job1', patchPath: sb.path('store2', 'evidence', 'snapshot.patch'), baseSha: git(repo2, 'rev-parse', 'main'), branch: 'paddock/job1' });
    assert.ok(!(ev.summary.foreignWorktrees ?? []).some((w) => w.includes('outside it')), 'inner2 is inside the worktree');
    await removeWorktree(repo2, wt2);
    const result = await restoreWorktree({ repo: repo2, snapshotRef: 'refs/paddock/snapshots/job1', evidenceDir: sb.path('store2', 'evidence'), target: sb.path('elsewhere2'), branch: 'paddock/job1' });
    assert.deepEqual(result.problems.filter((p) => /linked worktree/.test(p)), [], 'no false "gone or has no .git file"');
  });

  // Bug 169's third review: a registration is the nested repository's only if it really lies in its .git.
  it('a registration the agent linked (ln -s) to the person\'s, or a .git linked to theirs, is neither named nor repaired', async () => {
    const person = sb.repo({ 'r.txt': 'r\n' }, 'R');
    const theirs = sb.path('W');
    git(person, 'worktree', 'add', '-q', '-b', 'wbranch', theirs);
    const inner = path.join(wt, 'inner');
    symlinkSync(path.join(person, '.git', 'worktrees', 'W'), path.join(inner, '.git', 'worktrees', 'W'));
    mkdirSync(path.join(wt, 'linked'));
    symlinkSync(path.join(person, '.git'), path.join(wt, 'linked', '.git'));
    const dotGit = readFileSync(path.join(theirs, '.git'), 'utf8');
    const words = await capture();
    assert.equal(words.length, 1, `only inner's own linked worktree: ${words.join(' | ')}`);
    assert.match(status(theirs), /^## wbranch/, 'git works in the person\'s worktree, as the summary says nothing of it');
    const result = await restore(sb.path('elsewhere'));
    assert.deepEqual(result.problems, []);
    assert.equal(readFileSync(path.join(theirs, '.git'), 'utf8'), dotGit);
  });

  // Bug 197: a link that failed advised `git worktree repair` (with a warning): it rewrites every
  // checkout that repository registers (bug 176). Now the two linking files are named exactly.
  it('a link that fails at restore names the two files to write, never a repair to run', async () => {
    await capture();
    const dotGit = path.join(outside, '.git');
    const text = readFileSync(dotGit, 'utf8');
    rmSync(dotGit);
    writeFileSync(sb.path('their-dot-git'), text);
    symlinkSync(sb.path('their-dot-git'), dotGit); // someone's link: Paddock never writes through it
    const elsewhere = sb.path('elsewhere');
    const result = await restore(elsewhere);
    const problem = result.problems.find((p) => /could not be linked to the restored repository again/.test(p));
    assert.ok(problem, result.problems.join('\n'));
    assert.doesNotMatch(problem, /`git worktree repair` links it/);
    const admin = path.join(elsewhere, 'inner', '.git', 'worktrees', 'outside');
    const gitdir = path.join(admin, 'gitdir');
    assert.ok(problem.includes(`\`f='${dotGit}' && t=$(mktemp -- "$f.XXXXXX") && { { printf 'gitdir: ${admin}\\n' > "$t" && chmod =rw "$t" && { [ ! -L "$f" ] || rm -f -- "$f" ; } && if [ -d "$f" ] ;`), problem);
    assert.ok(problem.includes(`\`f='${gitdir}' && t=$(mktemp -- "$f.XXXXXX") && { { printf '${dotGit}\\n' > "$t" && chmod =rw "$t" && { [ ! -L "$f" ] || rm -f -- "$f" ; } && if [ -d "$f" ] ;`), problem);
    assert.match(problem, /not `git worktree repair`, which rewrites every checkout that repository registers/);
    // Followed as given: linked, the link replaced and what it led to left as it was.
    runAdvice(problem);
    assert.equal(readFileSync(sb.path('their-dot-git'), 'utf8'), text, 'not written through the link');
    assert.equal(git(outside, 'log', '--format=%s', '-1'), 'only on side', 'git works there again');
  });

  // Bug 197's review: the commands wrote a fixed temp name with `>`, which follows a symbolic link the
  // agent planted there (the registration's folder comes from its archive): the person's file was lost.
  it('the advice written by hand never writes through a link the agent planted in its registration folder', async () => {
    writeFileSync(sb.path('victim'), 'precious\n');
    const planted = path.join(wt, 'inner', '.git', 'worktrees', 'outside');
    for (const name of ['gitdir.paddock-new', 'gitdir.XXXXXX']) symlinkSync(sb.path('victim'), path.join(planted, name));
    await capture();
    const dotGit = path.join(outside, '.git');
    const text = readFileSync(dotGit, 'utf8');
    rmSync(dotGit);
    writeFileSync(sb.path('their-dot-git'), text);
    symlinkSync(sb.path('their-dot-git'), dotGit); // the relink fails: Paddock never writes through it
    const result = await restore(sb.path('elsewhere'));
    const problem = result.problems.find((p) => /could not be linked/.test(p));
    assert.ok(problem, result.problems.join('\n'));
    runAdvice(problem);
    assert.equal(readFileSync(sb.path('victim'), 'utf8'), 'precious\n', 'victim overwritten');
    assert.equal(git(outside, 'log', '--format=%s', '-1'), 'only on side', 'git works there again');
  });

  it('restore does not repair through a registration that leads out of the restored folder', async () => {
    const person = sb.repo({ 'r.txt': 'r\n' }, 'R');
    const theirs = sb.path('W');
    git(person, 'worktree', 'add', '-q', '-b', 'wbranch', theirs);
    const target = sb.path('target');
    git(sb.dir, 'init', '-q', '-b', 'main', target + '/inner');
    mkdirSync(path.join(target, 'inner', '.git', 'worktrees'));
    symlinkSync(path.join(person, '.git', 'worktrees', 'W'), path.join(target, 'inner', '.git', 'worktrees', 'W'));
    const gone = sb.path('gone', 'inner', '.git', 'worktrees', 'W');
    writeFileSync(path.join(theirs, '.git'), `gitdir: ${gone}\n`); // as if its repository were moved
    const problems = await relinkOutsideWorktrees(target, [{ repo: 'inner', id: 'W', folder: theirs, gitdir: gone }]);
    assert.equal(problems.length, 1);
    assert.match(problems[0]!, /registration there leads out of/);
    assert.equal(readFileSync(path.join(theirs, '.git'), 'utf8'), `gitdir: ${gone}\n`, 'not taken over');
  });

  // Bug 169's fourth review: `git worktree repair` rewrote the .git of every checkout the restored
  // repository registers, the person's worktree registered in the agent's copy among them.
  it('restore elsewhere links the copy\'s own outside worktree, never the person\'s worktree its registry still lists', async () => {
    const person = sb.repo({ 'r.txt': 'r\n' }, 'R');
    const theirs = sb.path('W');
    git(person, 'worktree', 'add', '-q', '-b', 'wbranch', theirs);
    const copy = path.join(wt, 'copy');
    execFileSync('cp', ['-r', person, copy]);
    const x = sb.path('X');
    git(copy, 'worktree', 'add', '-q', '-b', 'xb', x);
    const dotGit = readFileSync(path.join(theirs, '.git'), 'utf8');
    const words = await capture();
    assert.equal(words.length, 2, `inner's and the copy's own: ${words.join(' | ')}`);
    const result = await restore(sb.path('elsewhere'));
    assert.deepEqual(result.problems, []);
    assert.equal(readFileSync(path.join(theirs, '.git'), 'utf8'), dotGit, 'the person\'s worktree still names their repository');
    assert.match(status(theirs), /^## wbranch/);
    assert.match(status(x), /^## xb/, 'the copy\'s own is linked again');
    assert.doesNotMatch(status(outside), /^FAILED/, 'inner\'s own is linked again');
  });

  // Bug 169's fourth review: a `.git` file was passed over, though the git dir it leads to is inside.
  it('a repository whose separate git dir is inside the worktree: its linked worktree outside is named and linked again', async () => {
    const sep = path.join(wt, 'sep');
    git(wt, 'init', '-q', '-b', 'main', '--separate-git-dir', path.join(wt, 'gd'), 'sep');
    write(sep, 's.txt', 's\n');
    git(sep, 'add', '.');
    git(sep, ...WHO, 'commit', '-q', '-m', 's');
    const x = sb.path('X');
    git(sep, 'worktree', 'add', '-q', '-b', 'xb', x);
    // A linked worktree inside, its `.git` file leading into inner's .git: read once, as inner.
    git(path.join(wt, 'inner'), 'worktree', 'add', '-q', '-b', 'in', path.join(wt, 'innerLinked'));
    const words = (await capture()).filter((w) => w.includes('outside it'));
    assert.equal(words.length, 2, `inner's and sep's, once each: ${words.join(' | ')}`);
    assert.ok(words.some((w) => w.startsWith('sep:') && w.includes(x)), words.join(' | '));
    const result = await restore(sb.path('elsewhere'));
    assert.deepEqual(result.problems.filter((p) => /linked worktree/.test(p)), []);
    assert.match(status(x), /^## xb/, 'linked to the restored git dir');
    assert.doesNotMatch(status(outside), /^FAILED/);
  });
});

