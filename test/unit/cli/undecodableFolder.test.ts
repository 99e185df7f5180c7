/**
 * A repository folder whose name is not UTF-8 (bug 127): Node reads argv and the working folder as
 * UTF-8, the invalid byte becomes U+FFFD, and `start`, `allow` and `list --repo` said the folder
 * "does not exist" of one the person was standing in. They now name it, its byte shown as `\xff`,
 * and say why it cannot be used (bad input, status 2).
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertOneSentence, CLI_SCRIPT, requireBuild } from '../core/coordinator/coordinatorFixture';

describe('CLI: a repository folder whose name is not UTF-8 (bug 127)', function () {
  this.timeout(60_000);
  before(requireBuild);
  let root!: string;
  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'paddock-bytes-')));
    // The folder `r\xffo` and a repository in it: only a shell can name it (Node's strings cannot).
    const made = spawnSync('sh', ['-c', 'mkdir "$(printf "r\\377o")" && cd "$(printf "r\\377o")" && git init -q && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m i'], { cwd: root, encoding: 'utf8' });
    assert.equal(made.status, 0, made.stderr);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** A script run by sh, PADDOCK standing for the CLI: `$R` is the folder's real path, in bytes. */
  function paddock(script: string): { code: number | null; stdout: string; stderr: string } {
    const home = join(root, 'home');
    const res = spawnSync('sh', ['-c', `R="${root}/$(printf "r\\377o")"; ${script.replace(/\bPADDOCK\b/g, `"${process.execPath}" "${CLI_SCRIPT}"`)}`], {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PADDOCK_HOME: home, PADDOCK_RUNTIME_DIR: join(root, 'run') },
      encoding: 'utf8',
    });
    return { code: res.status, stdout: res.stdout, stderr: res.stderr };
  }

  const said = (verb: string) => `paddock ${verb}: Folder ${root}/r\\xffo has a name that is not valid UTF-8, which Paddock cannot carry in a path; rename it.\n`;

  it('start in it, or given it with --repo, says so, not that it does not exist (status 2)', () => {
    for (const script of ['cd "$R" && PADDOCK start -- true', 'PADDOCK start --repo "$R" -- true']) {
      const run = paddock(script);
      assert.equal(run.code, 2, script);
      assertOneSentence(run.stderr);
      assert.equal(run.stderr, said('start'), script);
      assert.equal(run.stdout, '');
    }
  });

  it('allow in it and list --repo it say the same', () => {
    assert.equal(paddock('cd "$R" && PADDOCK allow').stderr, said('allow'));
    assert.equal(paddock('PADDOCK list --repo "$R"').stderr, said('list'));
  });

  // Review found: with a sibling whose name reads alike (`r\xfeo`), the first found was named, not
  // the one the person stood in.
  it('with a sibling that reads alike, start in either names the one it runs in; --repo names both', () => {
    const made = paddock('mkdir "$(printf "r\\376o")" && mkdir "$(printf "r\\376o/sub")"');
    assert.equal(made.code, 0, made.stderr);
    const folder = (byte: string) => `${root}/r\\x${byte}o`;
    for (const [byte, octal] of [['fe', '376'], ['ff', '377']]) {
      const run = paddock(`cd "$(printf "r\\${octal}o")" && PADDOCK start -- true`);
      assert.equal(run.stderr, `paddock start: Folder ${folder(byte)} has a name that is not valid UTF-8, which Paddock cannot carry in a path; rename it.\n`);
    }
    const deeper = paddock('cd "$(printf "r\\376o/sub")" && PADDOCK start -- true');
    assert.match(deeper.stderr, /Folder .*r\\xfeo has a name/);
    const given = paddock('PADDOCK start --repo "$R" -- true');
    assert.equal(given.code, 2);
    assertOneSentence(given.stderr);
    assert.equal(
      given.stderr,
      `paddock start: Folders ${folder('fe')} and ${folder('ff')} have names that are not valid UTF-8 and read alike as ${root}/r\u{FFFD}o, which Paddock cannot carry in a path; rename them.\n`,
    );
  });

  it('a folder that does not exist, its name with U+FFFD or not, still does not exist', () => {
    const run = paddock(`PADDOCK start --repo "${root}/gone\u{FFFD}" -- true`);
    assert.equal(run.stderr, `paddock start: Folder ${root}/gone\u{FFFD} does not exist.\n`);
  });
});
