/**
 * `paddock` (dist/cli.js) runs the CLI bundle with V8's code cache: the real
 * loader and bundle, as separate processes. The cache is written once, used
 * after, replaced when V8 refuses it, never read from a folder others can
 * write, and off with PADDOCK_CODE_CACHE=off; the CLI behaves the same in
 * every case (output, exit status).
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI_SCRIPT } from '../core/coordinator/coordinatorFixture';

describe('paddock: the CLI bundle runs with a code cache', function () {
  this.timeout(60_000);
  let dir = '';
  let cacheHome = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'paddock-bin-'));
    cacheHome = join(dir, 'cache');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function paddock(args: string[], extra: NodeJS.ProcessEnv = {}): { code: number | null; stdout: string; stderr: string } {
    const env = { PATH: process.env.PATH, HOME: dir, PADDOCK_HOME: join(dir, 'home'), XDG_CACHE_HOME: cacheHome, ...extra };
    const res = spawnSync(process.execPath, [CLI_SCRIPT, ...args], { env, encoding: 'utf8' });
    return { code: res.status, stdout: res.stdout, stderr: res.stderr };
  }

  const cacheFolder = (): string => join(cacheHome, 'paddock', 'code-cache');
  const cacheFiles = (): string[] => (existsSync(cacheFolder()) ? readdirSync(cacheFolder()).filter((f) => f.endsWith('.bin')) : []);

  it('writes the cache on the first run (private), uses it after, and the CLI answers the same', () => {
    const first = paddock(['list', '--json']);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout.trim(), '[]');
    const [file] = cacheFiles();
    assert.ok(file, 'a cache file was written');
    assert.equal(statSync(cacheFolder()).mode & 0o777, 0o700);
    assert.equal(statSync(join(cacheFolder(), file)).mode & 0o777, 0o600);
    const written = statSync(join(cacheFolder(), file)).mtimeMs;
    const second = paddock(['list', '--json']);
    assert.deepEqual(second, first);
    assert.equal(statSync(join(cacheFolder(), file)).mtimeMs, written, 'an accepted cache is not written again');
    // Bad usage is still exit 2 with one sentence, through the cache.
    const bad = paddock(['bogus']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^paddock: unknown command 'bogus'/);
  });

  it('keeps a cache per verb (each holds what its own first run compiled), and one for anything else', () => {
    assert.equal(paddock(['list']).code, 0);
    assert.equal(paddock(['show', 'nosuch1']).code, 2);
    assert.equal(paddock(['bogus']).code, 2);
    const names = cacheFiles().map((f) => f.replace(/-\d+-\d+-\d+-v[\d.]+-\w+\.bin$/, ''));
    assert.deepEqual(names.sort(), ['cli', 'cli-list', 'cli-show']);
  });

  it("removes a stale cache of its own name only: the generic cache's cleanup leaves the verbs' caches", () => {
    mkdirSync(cacheFolder(), { recursive: true, mode: 0o700 });
    const longAgo = new Date(Date.now() - 30 * 24 * 3600 * 1000);
    for (const name of ['cli-1-2-3-v0-x64.bin', 'cli-list-1-2-3-v0-x64.bin', 'cli-pr-1-2-3-v0-x64.bin']) {
      writeFileSync(join(cacheFolder(), name), 'old', { mode: 0o600 });
      utimesSync(join(cacheFolder(), name), longAgo, longAgo);
    }
    assert.equal(paddock(['bogus']).code, 2);
    assert.equal(paddock(['prune']).code, 0);
    const left = cacheFiles();
    assert.ok(!left.includes('cli-1-2-3-v0-x64.bin'), 'the generic stale cache is removed by a generic run');
    assert.ok(left.includes('cli-list-1-2-3-v0-x64.bin'), "list's cache is not the generic one's to remove");
    assert.ok(left.includes('cli-pr-1-2-3-v0-x64.bin'), "pr's cache is not prune's to remove");
  });

  it('replaces a cache V8 refuses, and works all the same', () => {
    assert.equal(paddock(['list']).code, 0);
    const [file] = cacheFiles();
    writeFileSync(join(cacheFolder(), file), Buffer.alloc(4096, 7));
    const res = paddock(['list']);
    assert.equal(res.code, 0, res.stderr);
    assert.equal(res.stdout, 'No agents.\n');
    assert.notDeepEqual(readFileSync(join(cacheFolder(), file)), Buffer.alloc(4096, 7), 'rewritten');
  });

  it('does not use a cache folder others can write, nor any folder when turned off', () => {
    mkdirSync(cacheFolder(), { recursive: true });
    chmodSync(cacheFolder(), 0o777);
    const shared = paddock(['list']);
    assert.equal(shared.code, 0, shared.stderr);
    assert.deepEqual(cacheFiles(), [], 'nothing written to a folder others can write');
    rmSync(cacheHome, { recursive: true, force: true });
    const off = paddock(['list'], { PADDOCK_CODE_CACHE: 'off' });
    assert.equal(off.code, 0, off.stderr);
    assert.equal(existsSync(cacheFolder()), false);
  });

  it('a worker runs its bundle through the same cache (dist/worker.js → dist/workerMain.js)', async () => {
    const repo = join(dir, 'repo');
    mkdirSync(repo);
    for (const args of [['init', '-q', '-b', 'main'], ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'init']]) {
      assert.equal(spawnSync('git', args, { cwd: repo }).status, 0);
    }
    const started = paddock(['start', '--repo', repo, '--', 'sh', '-c', 'echo hi; sleep 3'], { PADDOCK_RUNTIME_DIR: join(dir, 'rt') });
    assert.equal(started.code, 0, started.stderr);
    const deadline = Date.now() + 20_000;
    while (!cacheFiles().some((f) => f.startsWith('worker-')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    assert.ok(cacheFiles().some((f) => f.startsWith('worker-')), `a worker cache among ${cacheFiles().join(', ')}`);
    const id = started.stdout.trim();
    const ended = Date.now() + 20_000;
    while (!/completed/.test(paddock(['show', id]).stdout) && Date.now() < ended) await new Promise((r) => setTimeout(r, 200));
    assert.match(paddock(['show', id]).stdout, /completed/);
  });
});
