import * as assert from 'node:assert/strict';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { WorkerClient } from '../../../../src/core/protocol/client';
import {
  checkSocketPath,
  ensureRuntimeDir,
  MAX_RUNTIME_DIR_BYTES,
  MAX_SOCKET_PATH_BYTES,
  runtimeDirFor,
  socketFileName,
  socketPathFor,
} from '../../../../src/core/protocol/runtimeDir';

describe('runtime dir', () => {
  let base: string;
  beforeEach(() => (base = mkdtempSync('/tmp/pdk-rt-')));
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('prefers PADDOCK_RUNTIME_DIR, then XDG_RUNTIME_DIR/paddock, then /tmp/paddock-<uid>', () => {
    assert.equal(runtimeDirFor({ PADDOCK_RUNTIME_DIR: '/x', XDG_RUNTIME_DIR: '/y' }), '/x');
    assert.equal(runtimeDirFor({ XDG_RUNTIME_DIR: '/run/user/1' }), '/run/user/1/paddock');
    assert.equal(runtimeDirFor({}), `/tmp/paddock-${process.getuid!()}`);
  });

  it('creates the directory with mode 0700', () => {
    const dir = ensureRuntimeDir(join(base, 'a', 'paddock'));
    assert.equal(statSync(dir).mode & 0o777, 0o700);
  });

  it('refuses a directory other users can reach', () => {
    const dir = join(base, 'loose');
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    assert.throws(() => ensureRuntimeDir(dir), /accessible to other users/);
  });

  it('refuses a directory owned by another user', function () {
    if (process.getuid!() !== 0) this.skip();
    const dir = join(base, 'theirs');
    mkdirSync(dir, { mode: 0o700 });
    chownSync(dir, 12345, 12345);
    assert.throws(() => ensureRuntimeDir(dir), /belongs to another user/);
  });

  it('uses short hashed names that differ per job and generation', () => {
    const a = socketFileName('abc123', 1);
    assert.match(a, /^[0-9a-f]{12}\.sock$/);
    assert.notEqual(a, socketFileName('abc123', 2));
    assert.notEqual(a, socketFileName('abc124', 1));
  });

  it('rejects a socket path over 107 bytes with a clear error instead of letting Node truncate it', () => {
    const long = `/tmp/${'d'.repeat(120)}`;
    assert.throws(() => socketPathFor('abc123', 1, { PADDOCK_RUNTIME_DIR: long }), /longer than the 107 bytes/);
    const exact = `/${'e'.repeat(MAX_SOCKET_PATH_BYTES - 1)}`;
    assert.equal(checkSocketPath(exact), exact);
    // Bytes, not characters: multi-byte names count fully.
    assert.throws(() => checkSocketPath(`/${'é'.repeat(60)}`), /bytes/);
  });

  describe('a runtime dir too long for its sockets (bug 175)', () => {
    const advice = new RegExp(`set PADDOCK_RUNTIME_DIR to a directory of at most ${MAX_RUNTIME_DIR_BYTES} bytes`);

    it('is refused before it is made, in one sentence saying the limit and what to set', () => {
      const longName = join(base, 'n'.repeat(300)); // over NAME_MAX: making it failed as *its name is too long*
      assert.throws(() => ensureRuntimeDir(longName), (err: Error) => advice.test(err.message) && !/name is too long/.test(err.message));
      const longPath = join(base, 'p'.repeat(200), 'q'.repeat(200)); // made fine, but a socket path there fails the worker's claim
      assert.throws(() => ensureRuntimeDir(longPath), advice);
      assert.equal(existsSync(join(base, 'p'.repeat(200))), false, 'nothing made');
      const justOver = `${base}/${'o'.repeat(MAX_RUNTIME_DIR_BYTES - base.length)}`;
      assert.throws(() => ensureRuntimeDir(justOver), advice);
      const longest = justOver.slice(0, -1);
      assert.equal(ensureRuntimeDir(longest), longest);
      assert.doesNotThrow(() => checkSocketPath(join(longest, socketFileName('abc123', 1))));
    });

    it('a client asked to connect to a socket path too long says so, not *no socket is there*', async () => {
      const path = join(base, 'c'.repeat(120), socketFileName('abc123', 1));
      await assert.rejects(WorkerClient.connectToSocket(path, 'token', { connectTimeoutMs: 200 }), /longer than the 107 bytes a Unix socket allows; set PADDOCK_RUNTIME_DIR/);
    });
  });
});
