/**
 * The rules by which a worker touches its socket path, on real sockets and real foreign processes:
 * only a refused connection proves a socket dead, only the very file judged is replaced, only the
 * worker's own file is removed, and a listener bound aside removes nothing at the path on close.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, Server, Socket } from 'node:net';
import { join } from 'node:path';
import { fileIdOf } from '../../../../src/core/protocol/fileIdentity';
import { asidePath, placeSocket, probeSocket, removeIfOwn } from '../../../../src/core/worker/socketFile';
import { ForeignSocket, foreignSocket } from './foreignSocket';

function listening(path: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((s) => s.destroy());
    server.once('error', reject);
    server.listen(path, () => resolve(server));
  });
}

const closed = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

describe('core/worker/socketFile', function () {
  this.timeout(20_000);
  let dir: string;
  const foreigners: ForeignSocket[] = [];
  const held: Socket[] = [];
  beforeEach(() => (dir = mkdtempSync('/tmp/pdk-sf-')));
  afterEach(() => {
    for (const s of held.splice(0)) s.destroy();
    for (const f of foreigners.splice(0)) f.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it('measures why: a listener closed unlinks the path it was bound to, whatever is there by then; one bound aside does not', async () => {
    const path = join(dir, 's.sock');
    const bound = await listening(path);
    unlinkSync(path);
    writeFileSync(path, 'someone else\'s');
    await closed(bound);
    assert.equal(existsSync(path), false, 'libuv unlinked the other file (why the worker never binds to its path)');

    const aside = asidePath(path);
    const asideBound = await listening(aside);
    assert.equal(placeSocket(aside, path), true);
    assert.equal(existsSync(aside), false, 'the private name is gone once linked');
    unlinkSync(path);
    writeFileSync(path, 'someone else\'s');
    await closed(asideBound);
    assert.equal(readFileSync(path, 'utf8'), 'someone else\'s');
  });

  it('takes a socket for dead only when it refuses (ECONNREFUSED): a full backlog (EAGAIN) is alive', async () => {
    const foreign = await foreignSocket(join(dir, 'f.sock'), 'never accepts', 0);
    foreigners.push(foreign);
    assert.equal(await probeSocket(foreign.path), 'alive', 'accepted into its backlog');
    assert.equal(await probeSocket(foreign.path), 'alive', 'its backlog full: EAGAIN');

    const deadPath = join(dir, 'd.sock');
    const dead = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(deadPath)}, () => console.log('up'))`]);
    await new Promise((resolve) => dead.stdout.once('data', resolve));
    dead.kill('SIGKILL');
    await new Promise((resolve) => dead.once('exit', resolve));
    assert.equal(await probeSocket(deadPath), 'dead');
    assert.equal(await probeSocket(join(dir, 'none.sock')), 'missing');
  });

  it('replaces only the very file judged, and links only into an empty path', async () => {
    const path = join(dir, 's.sock');
    writeFileSync(path, 'judged');
    const judged = fileIdOf(lstatSync(path));
    // Moved, not removed: its inode stays taken, so the new file cannot reuse it.
    renameSync(path, join(dir, 'moved'));
    writeFileSync(path, 'put there meanwhile');
    const aside = asidePath(path);
    const server = await listening(aside);
    try {
      assert.equal(placeSocket(aside, path, judged), false);
      assert.equal(placeSocket(aside, path), false, 'not an empty path');
      assert.equal(readFileSync(path, 'utf8'), 'put there meanwhile');
      assert.equal(placeSocket(aside, path, fileIdOf(lstatSync(path))), true);
      assert.ok(lstatSync(path).isSocket());
      held.push(await new Promise<Socket>((resolve, reject) => {
        const s = createConnection(path, () => resolve(s));
        s.once('error', reject);
      }));
    } finally {
      await closed(server);
    }
  });

  it('removes only its own file', async () => {
    const path = join(dir, 's.sock');
    writeFileSync(path, 'mine');
    const mine = fileIdOf(lstatSync(path));
    renameSync(path, join(dir, 'moved'));
    writeFileSync(path, 'someone else\'s');
    removeIfOwn(path, mine);
    assert.equal(readFileSync(path, 'utf8'), 'someone else\'s');
    removeIfOwn(path, fileIdOf(lstatSync(path)));
    assert.equal(existsSync(path), false);
  });
});
