import * as assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  checkSocketPath,
  ensureRuntimeDir,
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
});
