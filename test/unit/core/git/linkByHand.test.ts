/**
 * Bug 198: the commands restore advises for linking a checkout by hand (bug 197) used `mv -fT`,
 * GNU's: BSD `mv` (macOS) has no `-T`, so on a Mac the advice failed at its last step, leaving the
 * new file under its temp name. And the file `mktemp` made stayed 0600 where git writes 0666 under
 * the umask. Here the advice runs in a POSIX shell (dash) with a PATH whose `mv`, `rm`, `chmod` and
 * `mktemp` refuse every option BSD's lack, on a real worktree whose two linking files were broken.
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
    assert.throws(() => runAdvice(linkByHandWords(wt, admin), tools, '022'));
    assert.deepEqual(readdirSync(dotGit), [], 'nothing moved into a .git folder');
  });
});
