/**
 * Bug 198: the commands restore advises for linking a checkout by hand (bug 197) used `mv -fT`,
 * GNU's: BSD `mv` (macOS) has no `-T`, so on a Mac the advice failed at its last step, leaving the
 * new file under its temp name. And the file `mktemp` made stayed 0600 where git writes 0666 under
 * the umask. Here the advice runs in a POSIX shell (dash) with a PATH whose `mv`, `rm`, `chmod` and
 * `mktemp` refuse every option BSD's lack, on a real worktree whose two linking files were broken.
 * Review then found that a `.git` folder stopped the advice silently, leaving its temp file, that a
 * path with a raw byte was spelled `$'…'` (dash has none), and that a folder made between the look
 * and `mv` took the file: each is run here too (the last with an `mv` that makes that folder first).
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { linkByHandWords } from '../../../../src/core/git/linkByHand';
import { Sandbox, git, useGitSandbox } from './gitTestUtil';

/** Options each tool accepts on BSD and in POSIX; anything else is refused as BSD's would. */
const BSD_OPTIONS: Record<string, string> = { mv: 'f|i|n|v', rm: 'f|i|r|R|v', chmod: 'R|h|v', mktemp: 'd|q|t|u' };

/** A folder of wrappers that refuse GNU-only options, then run the real tool. */
function bsdTools(dir: string): string {
  mkdirSync(dir);
  for (const [tool, options] of Object.entries(BSD_OPTIONS)) {
    const real = execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim();
    const script = [
      '#!/bin/sh',
      'for a in "$@"; do',
      '  case "$a" in',
      '    --) break ;;',
      `    -*) opts=\${a#-}; while [ -n "$opts" ]; do o=\${opts%"\${opts#?}"}; opts=\${opts#?}; case "$o" in ${options}) ;; *) echo "${tool}: illegal option -- $o" >&2; exit 64 ;; esac; done ;;`,
      '    *) break ;;',
      '  esac',
      'done',
      `exec ${real} "$@"`,
    ].join('\n');
    writeFileSync(path.join(dir, tool), `${script}\n`);
    chmodSync(path.join(dir, tool), 0o755);
  }
  return dir;
}

/** Each command of the advice, run as given in dash, with the BSD-like tools first on PATH and `umask` set. */
function runAdvice(advice: string, tools: string, umask: string): void {
  const commands = [...advice.matchAll(/`([^`]*printf [^`]*)`/g)].map((m) => m[1]!);
  assert.equal(commands.length, 2, advice);
  for (const command of commands) {
    execFileSync('dash', ['-c', `umask ${umask} && ${command}`], { env: { ...process.env, PATH: `${tools}:${process.env.PATH}` }, stdio: ['ignore', 'pipe', 'pipe'] });
  }
}

const mode = (file: string): string => (lstatSync(file).mode & 0o777).toString(8);

describe('git: the advice to link a checkout by hand works with POSIX tools (bug 198)', function () {
  this.timeout(60_000);
  let sb!: Sandbox;
  let repo: string;
  let wt: string;
  let admin: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'a.txt': 'a\n' });
    wt = sb.path('W');
    git(repo, 'worktree', 'add', '-q', '-b', 'side', wt);
    admin = path.join(repo, '.git', 'worktrees', 'W');
  });

  for (const umask of ['022', '077']) {
    it(`links it in a POSIX shell whose mv has no -T, each file as git writes it under umask ${umask}`, () => {
      const tools = bsdTools(sb.path('bsd'));
      const dotGit = path.join(wt, '.git');
      const gitdir = path.join(admin, 'gitdir');
      const want = { dotGit: readFileSync(dotGit, 'utf8'), gitdir: readFileSync(gitdir, 'utf8') };
      const gitMode = (0o666 & ~parseInt(umask, 8)).toString(8);
      writeFileSync(dotGit, 'gitdir: /gone/.git/worktrees/W\n');
      writeFileSync(gitdir, '/gone/W/.git\n');
      runAdvice(linkByHandWords(wt, admin), tools, umask);
      assert.equal(readFileSync(dotGit, 'utf8'), want.dotGit);
      assert.equal(readFileSync(gitdir, 'utf8'), want.gitdir);
      assert.equal(mode(dotGit), gitMode, 'the .git file has the mode git gives it');
      assert.equal(mode(gitdir), gitMode, 'the gitdir file has the mode git gives it');
      assert.match(git(wt, 'status', '--short', '--branch'), /^## side/);
      assert.deepEqual(readdirSync(wt).filter((n) => n.startsWith('.git.')), [], 'no temp file left');
    });
  }

  it('a symbolic link at .git is replaced, never written through, and a folder there stops it', () => {
    const tools = bsdTools(sb.path('bsd'));
    const dotGit = path.join(wt, '.git');
    const want = readFileSync(dotGit, 'utf8');
    const theirs = sb.path('their-folder');
    mkdirSync(theirs);
    execFileSync('rm', [dotGit]);
    symlinkSync(theirs, dotGit); // a link to a folder: `mv` without -T would move the file into it
    runAdvice(linkByHandWords(wt, admin), tools, '022');
    assert.equal(readFileSync(dotGit, 'utf8'), want);
    assert.deepEqual(readdirSync(theirs), [], 'nothing written into the folder the link led to');
    execFileSync('rm', [dotGit]);
    mkdirSync(dotGit);
    assert.throws(() => runAdvice(linkByHandWords(wt, admin), tools, '022'), (err: { stderr?: Buffer }) => /\.git is a folder, not the link file git reads: nothing was written/.test(String(err.stderr)));
    assert.deepEqual(readdirSync(dotGit), [], 'nothing moved into a .git folder');
    assert.deepEqual(readdirSync(wt).filter((n) => n.startsWith('.git.')), [], "no temp file left when a folder stops it");
  });

  it('a folder that appears at .git between the look and mv: the file is taken out of it again, said, and no temp file is left', () => {
    const tools = bsdTools(sb.path('bsd'));
    // An `mv` that finds a folder made at its target just before it runs (the gap between `[ -d ]` and `mv`).
    const realMv = execFileSync('sh', ['-c', 'command -v mv'], { encoding: 'utf8' }).trim();
    writeFileSync(path.join(tools, 'mv'), `#!/bin/sh\nfor last; do :; done\nmkdir -p -- "$last"\nexec ${realMv} "$@"\n`);
    const dotGit = path.join(wt, '.git');
    execFileSync('rm', [dotGit]);
    assert.throws(() => runAdvice(linkByHandWords(wt, admin), tools, '022'), (err: { stderr?: Buffer }) => /\.git became a folder while this ran: the file moved into it was taken out again/.test(String(err.stderr)));
    assert.deepEqual(readdirSync(dotGit), [], 'the file moved into the folder is taken out');
    assert.deepEqual(readdirSync(wt).filter((n) => n.startsWith('.git.')), [], 'no temp file left');
  });

  it('a worktree under a folder named by a raw byte (bad\\xff) is linked by the advice run in dash (no $\'…\' there)', () => {
    const tools = bsdTools(sb.path('bsd'));
    const bash = (script: string) => execFileSync('bash', ['-euc', script], { env: { ...process.env, R: repo, S: sb.dir }, encoding: 'latin1' }).trim();
    bash(`git -C "$R" worktree add -q -b raw "$S"/$'bad\\xff'`);
    const before = bash(`cat "$S"/$'bad\\xff'/.git "$R"/.git/worktrees/$'bad\\xff'/gitdir | od -c`);
    bash(`printf 'gitdir: /gone\\n' > "$S"/$'bad\\xff'/.git && printf '/gone/.git\\n' > "$R"/.git/worktrees/$'bad\\xff'/gitdir`);
    runAdvice(linkByHandWords(sb.path('bad\udcff'), path.join(repo, '.git', 'worktrees', 'bad\udcff')), tools, '022');
    assert.equal(bash(`cat "$S"/$'bad\\xff'/.git "$R"/.git/worktrees/$'bad\\xff'/gitdir | od -c`), before);
    assert.equal(bash(`cd "$S"/$'bad\\xff' && git rev-parse --abbrev-ref HEAD`), 'raw');
  });
});
