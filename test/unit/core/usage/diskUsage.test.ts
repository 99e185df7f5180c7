/** A worktree's size as du counts it, measured incrementally, links not followed. */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DiskUsage } from '../../../../src/core/usage/diskUsage';

const du = (dir: string) => Number(execFileSync('du', ['-s', '-B1', dir], { encoding: 'utf8' }).split(/\s/)[0]);
const MB = 1024 * 1024;

describe('usage/diskUsage', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'paddock-du-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('equals du -s: blocks, hard links once, symbolic links (linked caches) not followed', async () => {
    const tree = join(root, 'tree');
    mkdirSync(join(tree, 'a', 'b'), { recursive: true });
    writeFileSync(join(tree, 'a', 'one.bin'), Buffer.alloc(3 * MB, 1));
    writeFileSync(join(tree, 'a', 'b', 'two.txt'), 'x'.repeat(5000));
    linkSync(join(tree, 'a', 'one.bin'), join(tree, 'hard.bin'));
    const cache = join(root, 'cache');
    mkdirSync(cache);
    writeFileSync(join(cache, 'huge.bin'), Buffer.alloc(8 * MB, 1));
    symlinkSync(cache, join(tree, 'node_modules'));
    const disk = new DiskUsage();
    assert.equal(await disk.measure(tree), du(tree));
    assert.ok((await disk.measure(tree))! < 4 * MB, 'the linked cache is not counted');
    assert.equal(await disk.measure(join(root, 'missing')), null);
  });

  it('follows changes: a new file, a file growing in place, a removed folder', async () => {
    const tree = join(root, 'tree');
    mkdirSync(join(tree, 'src'), { recursive: true });
    writeFileSync(join(tree, 'src', 'log.txt'), 'start\n');
    const disk = new DiskUsage();
    assert.equal(await disk.measure(tree), du(tree));
    writeFileSync(join(tree, 'src', 'new.bin'), Buffer.alloc(2 * MB, 1));
    assert.equal(await disk.measure(tree), du(tree), 'a new file (its folder changed)');
    appendFileSync(join(tree, 'src', 'log.txt'), Buffer.alloc(MB, 65));
    assert.equal(await disk.measure(tree), du(tree), 'a recently written file growing in place (its folder unchanged)');
    rmSync(join(tree, 'src'), { recursive: true });
    assert.equal(await disk.measure(tree), du(tree), 'a removed folder');
  });

  it('a new hard link to an old file, made in another folder, counts the file once', async () => {
    const tree = join(root, 'tree');
    mkdirSync(join(tree, 'a'), { recursive: true });
    mkdirSync(join(tree, 'b'));
    writeFileSync(join(tree, 'a', 'big'), Buffer.alloc(4 * MB, 1));
    // Written an hour ago: not looked at again by an incremental pass (its folder is unchanged).
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(join(tree, 'a', 'big'), hourAgo, hourAgo);
    const disk = new DiskUsage();
    assert.equal(await disk.measure(tree), du(tree));
    linkSync(join(tree, 'a', 'big'), join(tree, 'b', 'big2'));
    assert.equal(await disk.measure(tree), du(tree), 'the old file\'s new link is the same blocks');
    rmSync(join(tree, 'a', 'big'));
    assert.equal(await disk.measure(tree), du(tree), 'and its old name gone');
  });
});
