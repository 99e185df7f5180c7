/**
 * The store's files are read so that one that is not a regular file cannot hang or exhaust a process
 * (bug 45), and a small regular file — every record — in an open, one read and a close (no fstat).
 * The fast read must answer exactly as the checked one: the whole text of a regular file of any size
 * (around the one read's room too), the cap, and each kind of file that is not regular refused.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isNotRegularFile, readRegularFileSync, readRegularTextSync } from '../../../../src/core/store/regularFile';

describe('store: reading a regular file (regularFile.ts)', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-regular-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  };

  it('reads the whole text of regular files of every size around the one read\'s room, multi-byte characters included', () => {
    const room = 64 * 1024;
    for (const size of [1, 100, room - 2, room - 1, room, room + 1, 3 * room + 5]) {
      // 'é' is two bytes: a character cut at the room's end must still come back whole.
      const text = ('é' + 'x'.repeat(size)).slice(0, size);
      const file = write(`f${size}`, text);
      assert.equal(readRegularTextSync(file), text, `${size} characters`);
      assert.equal(readRegularTextSync(file), readRegularFileSync(file)!.toString('utf8'), `${size}: both forms agree`);
    }
    assert.equal(readRegularTextSync(write('empty', '')), '', 'an empty file is empty text');
  });

  it('answers the cap as the checked read does: at the cap the text, past it null', () => {
    const file = write('capped', 'abcdef');
    assert.equal(readRegularTextSync(file, 6), 'abcdef');
    assert.equal(readRegularTextSync(file, 5), null);
    assert.equal(readRegularTextSync(file, 0), null);
    const big = write('big', 'y'.repeat(100_000));
    assert.equal(readRegularTextSync(big, 99_999), null);
    assert.equal(readRegularTextSync(big, 100_000)?.length, 100_000);
  });

  it('refuses a FIFO, /dev/null and /dev/zero without blocking, and a folder with EISDIR; a missing file throws ENOENT', () => {
    const fifo = path.join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const devNull = path.join(dir, 'null');
    fs.symlinkSync('/dev/null', devNull);
    const devZero = path.join(dir, 'zero');
    fs.symlinkSync('/dev/zero', devZero);
    for (const [file, what] of [[fifo, 'a FIFO'], [devNull, 'a character device'], [devZero, 'a character device']] as const) {
      assert.throws(() => readRegularTextSync(file), (err: unknown) => isNotRegularFile(err) && err.what === what, file);
    }
    assert.throws(() => readRegularTextSync(dir), (err: NodeJS.ErrnoException) => err.code === 'EISDIR');
    assert.throws(() => readRegularTextSync(path.join(dir, 'none')), (err: NodeJS.ErrnoException) => err.code === 'ENOENT');
  });

  it('refuses a FIFO a writer holds open with bytes waiting, without taking them as the file', () => {
    const fifo = path.join(dir, 'held');
    execFileSync('mkfifo', [fifo]);
    // Opened to read and write, Linux's FIFO neither blocks nor lacks a writer: a valid-looking text waits in it.
    const writer = fs.openSync(fifo, fs.constants.O_RDWR);
    try {
      fs.writeSync(writer, '{"schemaVersion":1}');
      assert.throws(() => readRegularTextSync(fifo), (err: unknown) => isNotRegularFile(err) && err.what === 'a FIFO');
      assert.throws(() => readRegularFileSync(fifo), (err: unknown) => isNotRegularFile(err) && err.what === 'a FIFO');
    } finally {
      fs.closeSync(writer);
    }
  });
});
