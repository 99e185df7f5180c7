/**
 * Restore links again the files that were one at capture (hard links), judged by the inventory's
 * inode — on its device: two files on different devices (a folder mounted inside the worktree) may
 * share an inode number and be two files all the same. Linking them would make an edit through one
 * name show through the other.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { relinkHardLinks } from '../../../../src/core/git/hardLinks';

describe('relinkHardLinks', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'paddock-hardlinks-'));
    writeFileSync(join(dir, 'a.txt'), 'same bytes\n');
    writeFileSync(join(dir, 'b.txt'), 'same bytes\n');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const entry = (path: string, dev: number | undefined) => ({ path, type: 'file' as const, size: 11, mode: 0o644, mtimeMs: 0, ino: 4242, ...(dev === undefined ? {} : { dev }) });
  const linked = () => statSync(join(dir, 'a.txt')).ino === statSync(join(dir, 'b.txt')).ino;

  it('links again two files that shared an inode on one device', async () => {
    assert.deepEqual(await relinkHardLinks(dir, [entry('a.txt', 7), entry('b.txt', 7)]), []);
    assert.ok(linked());
  });

  it('leaves two files apart that shared an inode number on two devices', async () => {
    assert.deepEqual(await relinkHardLinks(dir, [entry('a.txt', 7), entry('b.txt', 8)]), []);
    assert.equal(linked(), false);
  });

  it('an inventory that recorded no device groups by inode, as before', async () => {
    await relinkHardLinks(dir, [entry('a.txt', undefined), entry('b.txt', undefined)]);
    assert.ok(linked());
  });
});
