/**
 * Bug 224: git's small files read by path in folders the agent can write are opened only when they
 * are regular files, never blocking: a FIFO (never written), a socket, a link to /dev/zero and a
 * folder are refused at once, each as its own error.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { readGitBytes, readGitFileText, readGitFileTextSync } from '../../../../src/core/git/gitFileText';

describe('git: reading git\'s small files without ever blocking (bug 224)', () => {
  let dir = '';
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'gitfile-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a regular file, and refuses a FIFO, a socket, /dev/zero and a folder at once', async () => {
    writeFileSync(path.join(dir, 'dotgit'), 'gitdir: /x\n');
    assert.equal(await readGitFileText(path.join(dir, 'dotgit')), 'gitdir: /x\n');
    assert.equal(readGitFileTextSync(path.join(dir, 'dotgit')), 'gitdir: /x\n');
    execFileSync('mkfifo', [path.join(dir, 'fifo')]);
    symlinkSync(path.join(dir, 'fifo'), path.join(dir, 'toFifo'));
    symlinkSync('/dev/zero', path.join(dir, 'zero'));
    mkdirSync(path.join(dir, 'folder'));
    const server = net.createServer().listen(path.join(dir, 'sock'));
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      for (const [name, code] of [['fifo', 'ENOTREG'], ['toFifo', 'ENOTREG'], ['zero', 'ENOTREG'], ['sock', 'ENOTREG'], ['folder', 'EISDIR'], ['gone', 'ENOENT']] as const) {
        const file = path.join(dir, name);
        await assert.rejects(readGitFileText(file), (err: NodeJS.ErrnoException) => err.code === code, name);
        await assert.rejects(readGitBytes(file), (err: NodeJS.ErrnoException) => err.code === code, name);
        assert.throws(() => readGitFileTextSync(file), (err: NodeJS.ErrnoException) => err.code === code, name);
      }
      writeFileSync(path.join(dir, 'big'), 'x'.repeat(11));
      await assert.rejects(readGitFileText(path.join(dir, 'big'), 10), (err: NodeJS.ErrnoException) => err.code === 'EFBIG');
    } finally {
      server.close();
    }
  });
});
