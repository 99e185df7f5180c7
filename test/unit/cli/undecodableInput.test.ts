/**
 * Input whose bytes are not UTF-8 (bug 143): Node reads argv and the environment as UTF-8, each
 * invalid byte becoming U+FFFD. `PADDOCK_HOME=…/h\xff` placed the store in `…/h\uFFFD`, another
 * folder; `restore --to …/r\xffo` restored into `…/r\uFFFDo`; a title or an agent's argument lost its
 * byte. Each is now refused before anything runs (bad input, status 2), its bytes shown as `\xff`.
 * The bytes are made by a shell (Node's strings cannot hold them) and read from /proc (Linux).
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertOneSentence, CLI_SCRIPT, requireBuild } from '../core/coordinator/coordinatorFixture';
import { waitUntil } from '../core/worker/fixtures';

describe('CLI: input that is not UTF-8 (bug 143)', function () {
  this.timeout(90_000);
  before(function () {
    requireBuild();
    if (!existsSync('/proc/self/cmdline')) this.skip(); // the raw bytes are read from /proc
  });
  let root!: string;
  let repo!: string;
  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'paddock-input-')));
    repo = join(root, 'repo');
    const made = spawnSync('sh', ['-c', `git init -q -b main "${repo}" && git -C "${repo}" -c user.name=t -c user.email=t@t commit -q --allow-empty -m i`], { encoding: 'utf8' });
    assert.equal(made.status, 0, made.stderr);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** A script run by sh, PADDOCK standing for the CLI, `$B` for the byte 0xff. */
  function paddock(script: string, env: NodeJS.ProcessEnv = {}): { code: number | null; stdout: string; stderr: string } {
    const res = spawnSync('sh', ['-c', `B="$(printf "\\377")"; ${script.replace(/\bPADDOCK\b/g, `"${process.execPath}" "${CLI_SCRIPT}"`)}`], {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PADDOCK_HOME: join(root, 'home'), PADDOCK_RUNTIME_DIR: join(root, 'run'), PADDOCK_CODE_CACHE: 'off', ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { code: res.status, stdout: res.stdout, stderr: res.stderr };
  }

  /** The agents of the store at `home`, by the CLI. */
  function listed(home = join(root, 'home')): unknown[] {
    const run = paddock('PADDOCK list --json', { PADDOCK_HOME: home });
    assert.equal(run.code, 0, run.stderr);
    return JSON.parse(run.stdout) as unknown[];
  }

  it('a PADDOCK_HOME (or runtime folder) that is not UTF-8 is refused, and no store is made in the folder it misreads', () => {
    for (const name of ['PADDOCK_HOME', 'PADDOCK_RUNTIME_DIR']) {
      const run = paddock(`${name}="${root}/h$B" PADDOCK start --repo "${repo}" -- true`);
      assert.equal(run.code, 2, `${name}: ${run.stderr}`);
      assertOneSentence(run.stderr);
      assert.equal(
        run.stderr,
        `paddock start: ${name} is ${root}/h\\xff, a path that is not valid UTF-8, which Paddock cannot carry (it would name ${root}/h\u{FFFD} instead); use a folder whose path is.\n`,
      );
      assert.equal(run.stdout, '');
    }
    assert.deepEqual(readdirSync(root).sort(), ['repo'], 'no folder made, misread or not');
  });

  it('a HOME or XDG_STATE_HOME that is not UTF-8 is refused, and nothing is made in the folder it misreads (the code cache included)', () => {
    // The code cache on (it is made before the command runs): it was written under the misread HOME first.
    for (const name of ['HOME', 'XDG_STATE_HOME']) {
      const run = paddock(`unset PADDOCK_HOME; ${name}="${root}/h$B" PADDOCK list --json`, { PADDOCK_CODE_CACHE: '', HOME: join(root, 'home') });
      assert.equal(run.code, 2, `${name}: ${run.stderr}`);
      assertOneSentence(run.stderr);
      assert.match(run.stderr, new RegExp(`^paddock list: ${name} is ${root}/h\\\\xff, a path that is not valid UTF-8`));
    }
    // Only the code cache reads XDG_CACHE_HOME: the command runs, without the cache.
    const cached = paddock(`XDG_CACHE_HOME="${root}/h$B" PADDOCK list --json`, { PADDOCK_CODE_CACHE: '' });
    assert.equal(cached.code, 0, cached.stderr);
    assert.deepEqual(readdirSync(root).filter((n) => n.includes('\uFFFD')), [], 'nothing made in a misread folder');
  });

  it('restore --to a folder that is not UTF-8 is refused, nothing made (it restored into …/r\uFFFDo)', async () => {
    const started = paddock(`PADDOCK start --repo "${repo}" -- sh -c 'echo hi > f.txt'`);
    assert.equal(started.code, 0, started.stderr);
    const id = started.stdout.trim();
    await waitUntil('the agent to end', () => (listed() as { lifecycle: { state: string } }[])[0].lifecycle.state === 'completed', 15_000);
    const cleaned = paddock(`PADDOCK cleanup ${id} --yes`);
    assert.equal(cleaned.code, 0, cleaned.stderr);
    const before = readdirSync(root).sort();
    const run = paddock(`PADDOCK restore ${id} --to "${root}/r\${B}o"`);
    assert.equal(run.code, 2, run.stderr);
    assert.equal(run.stderr, `paddock restore: The argument ${root}/r\\xffo is not valid UTF-8, which Paddock cannot carry (it would read as ${root}/r\u{FFFD}o); use one that is.\n`);
    assert.deepEqual(readdirSync(root).sort(), before, 'nothing restored anywhere');
  });

  it('a title or an agent argument that is not UTF-8 starts no agent', () => {
    for (const script of [`PADDOCK start --repo "${repo}" --title "caf$B" -- true`, `PADDOCK start --repo "${repo}" -- printf "$B"`]) {
      const run = paddock(script);
      assert.equal(run.code, 2, `${script}: ${run.stderr}`);
      assertOneSentence(run.stderr);
      assert.match(run.stderr, /^paddock start: The argument .*\\xff.* is not valid UTF-8, which Paddock cannot carry/);
    }
    assert.deepEqual(listed(), [], 'no agent started');
  });

  it("U+FFFD that is the text's own character is taken as it is", () => {
    const run = paddock(`PADDOCK start --repo "${repo}" --title "caf\u{FFFD}" -- true`);
    assert.equal(run.code, 0, run.stderr);
    const [job] = listed() as { title: string }[];
    assert.equal(job.title, 'caf\u{FFFD}');
  });
});
