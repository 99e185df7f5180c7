/**
 * Bug 175: `paddock start` with a PADDOCK_RUNTIME_DIR too long for its sockets failed with the words
 * of whatever broke first: *its name is too long* (a name over 255 bytes, at making the folder) or
 * *worker exited before it started the agent* (a socket path over the record's 200 characters failed
 * the worker's claim). Now one sentence says the limit and what to set, and nothing is made.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_RUNTIME_DIR_BYTES } from '../../../src/core/protocol/runtimeDir';
import { CLI_SCRIPT } from '../core/coordinator/coordinatorFixture';

describe('paddock start with a runtime dir too long for its sockets (bug 175)', function () {
  this.timeout(60_000);
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'paddock-longrt-'));
    spawnSync('git', ['init', '-q', join(dir, 'repo')]);
    spawnSync('git', ['-C', join(dir, 'repo'), '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'init']);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function paddock(args: string[], runtimeDir: string): { code: number | null; stdout: string; stderr: string } {
    const env = { PATH: process.env.PATH, HOME: dir, PADDOCK_HOME: join(dir, 'home'), PADDOCK_RUNTIME_DIR: runtimeDir };
    const res = spawnSync(process.execPath, [CLI_SCRIPT, ...args], { env, encoding: 'utf8', cwd: join(dir, 'repo') });
    return { code: res.status, stdout: res.stdout, stderr: res.stderr };
  }

  const cases = {
    'a folder name over 255 bytes': () => join(dir, 'n'.repeat(300)),
    'a path past the 200 characters a record keeps': () => join(dir, 'p'.repeat(200), 'q'.repeat(200)),
  };
  for (const [name, runtimeDir] of Object.entries(cases)) {
    it(`${name}: one sentence with the limit and what to set, in the error and the record`, () => {
      const started = paddock(['start', '--', 'sleep', '30'], runtimeDir());
      assert.equal(started.code, 1, started.stderr);
      const advice = `set PADDOCK_RUNTIME_DIR to a directory of at most ${MAX_RUNTIME_DIR_BYTES} bytes`;
      assert.ok(started.stderr.includes(advice), started.stderr);
      assert.equal(started.stderr.trim().split('\n').length, 1, started.stderr);
      const [job] = JSON.parse(paddock(['list', '--json'], runtimeDir()).stdout) as { lifecycle: { state: string; detail: string } }[];
      assert.equal(job.lifecycle.state, 'failed');
      assert.ok(job.lifecycle.detail.includes(advice), job.lifecycle.detail);
      assert.equal(existsSync(join(dir, 'p'.repeat(200))), false, 'no folder made');
    });
  }
});
