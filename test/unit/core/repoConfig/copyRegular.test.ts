/** One file copied into a worktree (copyRegular.ts): what is opened is what is copied, and holes stay holes, fast. */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, closeSync, constants, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'node:fs/promises';
import { copyBig } from '../../../../src/core/repoConfig/bigCopy';
import { copyRegularFile, openedPath, TIMED_FROM } from '../../../../src/core/repoConfig/copyRegular';

/** A file of `size` bytes, every block written: data, then a run of written zeros. */
function denseFile(file: string, size: number): void {
  const data = Buffer.alloc(size, 0x61);
  data.fill(0, 1024 * 1024, 2 * 1024 * 1024);
  writeFileSync(file, data);
}

/** Runs `fn` with `dir` first on PATH (a `cp` of the test's own, or none at all). */
async function withPath<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const path = process.env.PATH;
  process.env.PATH = dir;
  try {
    return await fn();
  } finally {
    process.env.PATH = path;
  }
}

/** A `cp` of the test's own in `dir`, running `script` under sh. */
function fakeCp(dir: string, script: string): void {
  writeFileSync(join(dir, 'cp'), `#!/bin/sh\n${script}\n`);
  chmodSync(join(dir, 'cp'), 0o755);
}

/** A file of `size` bytes holding only its first and last few. */
function sparseFile(file: string, size: number): void {
  writeFileSync(file, 'head');
  const fd = openSync(file, 'r+');
  writeSync(fd, 'tail', size - 4);
  closeSync(fd);
}

describe('copying one file into a worktree', function () {
  this.timeout(120_000);
  let root: string;
  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'paddock-copy-')));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('refuses a FIFO, or a symlink to one, put where the listing saw a file, at once (bug 160)', async () => {
    const fifo = join(root, 'img');
    execFileSync('mkfifo', [fifo]);
    symlinkSync(fifo, join(root, 'link'));
    for (const source of [fifo, join(root, 'link')]) {
      const dest = join(root, 'copy');
      const started = Date.now();
      const copying = copyRegularFile(source, dest);
      // A copy that opened the FIFO by path waits for a writer, past even process.exit: one comes after 2 s, so it fails instead of hanging.
      const writer = setTimeout(() => closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK)), 2_000);
      const why = await copying.finally(() => clearTimeout(writer));
      assert.ok(Date.now() - started < 2_000, `${source}: the copy waited ${Date.now() - started} ms for a writer`);
      assert.equal(why, 'not a regular file');
      assert.equal(existsSync(dest), false);
    }
  });

  it('copies a big sparse file in moments, skipping its holes rather than reading them (bug 160)', async () => {
    const image = join(root, 'img');
    sparseFile(image, 8 * 1024 ** 3);
    const started = Date.now();
    assert.equal(await copyRegularFile(image, join(root, 'copy')), null);
    const took = Date.now() - started;
    const copy = statSync(join(root, 'copy'));
    assert.equal(copy.size, 8 * 1024 ** 3);
    assert.ok(copy.blocks * 512 < 1024 * 1024, `${copy.blocks * 512} bytes on disk`);
    assert.ok(took < 5_000, `8 GiB holding 8 bytes took ${took} ms`);
  });

  it('without a cp that skips holes, still copies the holes as holes, mode and bytes kept', async () => {
    const image = join(root, 'img');
    sparseFile(image, 16 * 1024 * 1024 + 5);
    execFileSync('chmod', ['640', image]);
    const path = process.env.PATH;
    process.env.PATH = root; // no cp here: the fallback copies
    try {
      assert.equal(await copyRegularFile(image, join(root, 'copy')), null);
    } finally {
      process.env.PATH = path;
    }
    const copy = statSync(join(root, 'copy'));
    assert.equal(copy.mode & 0o777, 0o640);
    assert.ok(copy.blocks * 512 < 1024 * 1024, `${copy.blocks * 512} bytes on disk`);
    assert.ok(readFileSync(join(root, 'copy')).equals(readFileSync(image)));
  });

  it('stops a cp that does not finish at its timeout, leaving no partial copy', async function () {
    if (process.platform !== 'linux') this.skip(); // cp is used on Linux only
    const image = join(root, 'img');
    sparseFile(image, 16 * 1024 * 1024);
    // A cp stuck on a hung file system: exec'd, so the killed process is the sleeping one.
    writeFileSync(join(root, 'cp'), '#!/bin/sh\nexec sleep 30\n');
    chmodSync(join(root, 'cp'), 0o755);
    const path = process.env.PATH;
    process.env.PATH = `${root}:${path}`;
    const from = await open(image, 'r');
    const started = Date.now();
    try {
      await assert.rejects(copyBig(from, openedPath(from, image), join(root, 'copy'), 0o644, true, 500), /did not finish within 1 s/);
    } finally {
      process.env.PATH = path;
      await from.close();
    }
    assert.ok(Date.now() - started < 5_000);
    assert.equal(existsSync(join(root, 'copy')), false);
  });

  it('stops a big dense copy at the same limit as a sparse one, leaving no partial copy (second review of bug 160)', async function () {
    if (process.platform !== 'linux') this.skip(); // cp is used on Linux only
    const db = join(root, 'db');
    denseFile(db, TIMED_FROM + 4096);
    writeFileSync(join(root, 'cp'), '#!/bin/sh\nexec sleep 30\n'); // a cp stuck on a hung file system
    chmodSync(join(root, 'cp'), 0o755);
    const started = Date.now();
    await withPath(`${root}:${process.env.PATH}`, () => assert.rejects(copyRegularFile(db, join(root, 'copy'), 500), /did not finish within 1 s/));
    assert.ok(Date.now() - started < 5_000);
    assert.equal(existsSync(join(root, 'copy')), false);
  });

  it('gives the copy without cp, after a cp that wrote nothing and failed, only the rest of the limit (third review of bug 160)', async function () {
    if (process.platform !== 'linux') this.skip(); // cp is used on Linux only
    const image = join(root, 'img');
    sparseFile(image, 2 * 1024 ** 3); // reading its holes in-process takes seconds; no disk
    fakeCp(root, 'sleep 0.7; exit 1'); // busybox refusing --sparse, late
    const started = Date.now();
    await withPath(`${root}:${process.env.PATH}`, () => assert.rejects(copyRegularFile(image, join(root, 'copy'), 1_000), /did not finish within 1 s/));
    assert.ok(Date.now() - started < 5_000, `stopped after ${Date.now() - started} ms`);
    assert.equal(existsSync(join(root, 'copy')), false);
  });

  it('fails a copy whose cp failed partway rather than starting over, leaving no partial copy (third review of bug 160)', async function () {
    if (process.platform !== 'linux') this.skip(); // cp is used on Linux only
    const image = join(root, 'img');
    sparseFile(image, 16 * 1024 * 1024);
    fakeCp(root, 'printf x >&4; exit 1'); // an EIO or a full disk after some of the copy
    await withPath(`${root}:${process.env.PATH}`, () => assert.rejects(copyRegularFile(image, join(root, 'copy')), /cp failed partway with exit code 1/));
    assert.equal(existsSync(join(root, 'copy')), false);
  });

  it('copies a big dense file dense, mode and bytes kept, by cp or without it', async () => {
    const db = join(root, 'db');
    denseFile(db, TIMED_FROM + 4096);
    chmodSync(db, 0o640);
    // The real cp behind a wrapper that says it ran: the by-cp leg is cp's.
    const real = execFileSync('sh', ['-c', 'command -v cp'], { encoding: 'utf8' }).trim();
    mkdirSync(join(root, 'bin'));
    fakeCp(join(root, 'bin'), `echo "$@" >> ${root}/cp-ran; exec ${real} "$@"`);
    assert.equal(await withPath(`${join(root, 'bin')}:${process.env.PATH}`, () => copyRegularFile(db, join(root, 'by-cp'))), null);
    if (process.platform === 'linux') {
      assert.ok(existsSync(join(root, 'cp-ran')), 'cp never ran for the by-cp copy');
      assert.match(readFileSync(join(root, 'cp-ran'), 'utf8'), /^--sparse=auto /);
    }
    assert.equal(await withPath(root, () => copyRegularFile(db, join(root, 'no-cp'))), null);
    for (const name of ['by-cp', 'no-cp']) {
      const copy = statSync(join(root, name));
      assert.equal(copy.mode & 0o777, 0o640, name);
      // Its written zeros stay written (a preallocated database keeps its blocks).
      assert.ok(copy.blocks * 512 >= copy.size, `${name}: ${copy.blocks * 512} bytes on disk for ${copy.size}`);
      assert.ok(readFileSync(join(root, name)).equals(readFileSync(db)), name);
    }
  });
});
