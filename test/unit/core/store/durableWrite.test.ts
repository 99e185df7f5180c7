/**
 * The one durable write (store/durable.ts) outside the store: a file's own mode, and a folder
 * that can be written but not read (its fsync cannot open it, yet the rename stands).
 */
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileDurableSync } from '../../../../src/core/store/durable';

const NOBODY = 65534;

describe('durable write: modes and folders outside the store', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'paddock-durable-')));
  });
  afterEach(() => {
    chmodSync(dir, 0o700);
    rmSync(dir, { recursive: true, force: true });
  });

  it('the sync write keeps the mode it is given (under the umask), and the store default stays private', () => {
    writeFileDurableSync(join(dir, 'launcher'), '#!/bin/sh\n', 0o755);
    writeFileDurableSync(join(dir, 'private'), 'x');
    assert.equal(statSync(join(dir, 'launcher')).mode & 0o777, 0o755 & ~process.umask());
    assert.equal(statSync(join(dir, 'private')).mode & 0o777, 0o600);
  });

  it('a folder that can be written but not read: the write succeeds and says so, with no temp file left', function () {
    // Root reads every folder: the write runs as nobody, in a folder handed to nobody.
    const asNobody = process.getuid?.() === 0 ? { uid: NOBODY, gid: NOBODY } : {};
    if ('uid' in asNobody) execFileSync('chown', [`${NOBODY}:${NOBODY}`, dir]);
    chmodSync(dir, 0o300);
    const durable = require.resolve('../../../../src/core/store/durable');
    const script = `
      const { writeFileDurable, writeFileDurableSync } = require(${JSON.stringify(durable)});
      (async () => {
        const out = [];
        for (const [name, write] of [['async', (f) => writeFileDurable(f, 'text\\n', 0o644)], ['sync', async (f) => writeFileDurableSync(f, 'text\\n')]]) {
          try {
            await write(${JSON.stringify(dir)} + '/' + name);
            out.push(name + ': written');
          } catch (err) {
            out.push(name + ': ' + err.code);
          }
        }
        console.log(JSON.stringify(out));
      })();`;
    const res = spawnSync(process.execPath, ['-e', script], { env: process.env, encoding: 'utf8', timeout: 30_000, ...asNobody });
    if (res.status !== 0 && /EACCES|Cannot find module/.test(res.stderr)) this.skip(); // the built files are not readable by nobody here
    assert.equal(res.status, 0, res.stderr);
    assert.deepEqual(JSON.parse(res.stdout), ['async: written', 'sync: written']);
    chmodSync(dir, 0o700);
    assert.deepEqual(readdirSync(dir).sort(), ['async', 'sync']);
    assert.equal(readFileSync(join(dir, 'async'), 'utf8'), 'text\n');
  });
});
