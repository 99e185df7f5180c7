/** Bringing untracked files into a new worktree: copy, link, .worktreeinclude, on real git repos. */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, closeSync, existsSync, lstatSync, mkdirSync, mkdtempSync, openSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { placeWorktreeFiles, planWorktreeFiles, type WorktreeFilesRequest, type WorktreeFilesResult } from '../../../../src/core/repoConfig/worktreeFiles';
import { git } from '../coordinator/coordinatorFixture';

/** What a launch does: the files listed in the main worktree, then placed in the new one. */
async function bringWorktreeFiles(req: WorktreeFilesRequest): Promise<WorktreeFilesResult> {
  const plan = await planWorktreeFiles(req);
  return plan ? placeWorktreeFiles(plan, req.worktree) : { copied: 0, linked: 0, skipped: [] };
}

describe('worktree files: copy, link, .worktreeinclude', function () {
  this.timeout(30_000);
  let root: string;
  let repo: string;
  let worktree: string;

  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'paddock-wtf-')));
    repo = join(root, 'repo');
    mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    writeFileSync(join(repo, '.gitignore'), '.env*\nnode_modules/\n*.log\nsecret-link\ninside-link\nbin/\n');
    writeFileSync(join(repo, 'tracked.env.example'), 'tracked\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'init');
    writeFileSync(join(repo, '.env'), 'A=1\n');
    writeFileSync(join(repo, '.env.local'), 'B=2\n', { mode: 0o600 });
    mkdirSync(join(repo, 'sub'));
    writeFileSync(join(repo, 'sub', '.env'), 'C=3\n');
    // Group- and world-writable: bits a umask of 022 would drop from a file merely created with this mode.
    chmodSync(join(repo, 'sub', '.env'), 0o666);
    mkdirSync(join(repo, 'bin'));
    writeFileSync(join(repo, 'bin', 'run.sh'), '#!/bin/sh\necho hi\n');
    chmodSync(join(repo, 'bin', 'run.sh'), 0o751);
    mkdirSync(join(repo, 'node_modules', 'pkg'), { recursive: true });
    writeFileSync(join(repo, 'node_modules', 'pkg', 'index.js'), 'module.exports = 1;\n');
    writeFileSync(join(repo, 'debug.log'), 'log\n');
    writeFileSync(join(root, 'outside.txt'), 'outside\n');
    symlinkSync(join(root, 'outside.txt'), join(repo, 'secret-link'));
    symlinkSync('.env', join(repo, 'inside-link'));
    worktree = join(root, 'wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/x', worktree);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('copies untracked files matching the globs at any depth, keeping modes, and nothing tracked', async () => {
    const result = await bringWorktreeFiles({ repo, worktree, copy: ['.env*', 'bin/'], link: [] });
    assert.equal(readFileSync(join(worktree, '.env'), 'utf8'), 'A=1\n');
    assert.equal(readFileSync(join(worktree, '.env.local'), 'utf8'), 'B=2\n');
    assert.equal(statSync(join(worktree, '.env.local')).mode & 0o777, 0o600);
    assert.equal(readFileSync(join(worktree, 'sub', '.env'), 'utf8'), 'C=3\n');
    assert.equal(statSync(join(worktree, 'sub', '.env')).mode & 0o777, 0o666);
    assert.equal(statSync(join(worktree, 'bin', 'run.sh')).mode & 0o777, 0o751);
    assert.equal(existsSync(join(worktree, 'debug.log')), false, 'not named: not copied');
    assert.equal(existsSync(join(worktree, 'node_modules')), false);
    assert.equal(result.copied, 4);
    assert.deepEqual(result.skipped, []);
  });

  it('never copies over a file the worktree already has', async () => {
    writeFileSync(join(worktree, '.env'), 'mine\n');
    const result = await bringWorktreeFiles({ repo, worktree, copy: ['/.env'], link: [] });
    assert.equal(readFileSync(join(worktree, '.env'), 'utf8'), 'mine\n');
    assert.deepEqual(result.skipped, [{ path: '.env', why: 'exists in the worktree' }]);
  });

  it('recreates a symlink that stays inside the repository and skips one that leads out', async () => {
    const result = await bringWorktreeFiles({ repo, worktree, copy: ['secret-link', 'inside-link', '/.env'], link: [] });
    assert.equal(existsSync(join(worktree, 'secret-link')), false);
    assert.ok(lstatSync(join(worktree, 'inside-link')).isSymbolicLink());
    assert.equal(readlinkSync(join(worktree, 'inside-link')), '.env');
    assert.deepEqual(result.skipped, [{ path: 'secret-link', why: 'a symlink pointing outside the repository' }]);
  });

  it('a copied symlink leads to the worktree\'s own file, never to the main checkout\'s (bug 161)', async () => {
    // Absolute, and relative climbing out of the repository and back in by its name (the worktree is its sibling here).
    symlinkSync(join(repo, '.env'), join(repo, '.env.abs'));
    symlinkSync(join('..', '..', 'repo', '.env'), join(repo, 'sub', '.env.up'));
    const result = await bringWorktreeFiles({ repo, worktree, copy: ['/.env', '.env.abs', '.env.up'], link: [] });
    assert.deepEqual(result.skipped, []);
    assert.equal(readlinkSync(join(worktree, '.env.abs')), '.env');
    assert.equal(readlinkSync(join(worktree, 'sub', '.env.up')), '../.env');
    writeFileSync(join(worktree, '.env.abs'), 'agent\n');
    writeFileSync(join(worktree, 'sub', '.env.up'), 'agent 2\n');
    assert.equal(readFileSync(join(repo, '.env'), 'utf8'), 'A=1\n', "the person's file is untouched");
    assert.equal(readFileSync(join(worktree, '.env'), 'utf8'), 'agent 2\n');
  });

  it('a copied symlink whose target the worktree lacks gets the checkout\'s file, or is left out with why, never dangling (bug 161)', async () => {
    // `local/` is untracked and not named by copy: the worktree has no local/env.real for the links to reach.
    mkdirSync(join(repo, 'local'));
    writeFileSync(join(repo, 'local', 'env.real'), 'SECRET=1\n', { mode: 0o600 });
    symlinkSync(join(repo, 'local', 'env.real'), join(repo, '.env.abs'));
    symlinkSync('.env.abs', join(repo, '.env.chain'));
    symlinkSync('local', join(repo, '.env.dir'));
    symlinkSync('local/gone', join(repo, '.env.gone'));
    // Neither is a folder, and neither is opened to find out (a FIFO's open waits for a writer).
    execFileSync('mkfifo', [join(repo, 'local', 'pipe')]);
    symlinkSync('local/pipe', join(repo, '.env.pipe'));
    const server = createServer().listen(join(repo, 'local', 'sock'));
    await once(server, 'listening');
    symlinkSync('local/sock', join(repo, '.env.sock'));
    const copy = ['.env.abs', '.env.chain', '.env.dir', '.env.gone', '.env.pipe', '.env.sock'];
    const result = await bringWorktreeFiles({ repo, worktree, copy, link: [] }).finally(() => server.close());
    assert.ok(lstatSync(join(worktree, '.env.abs')).isFile(), "the checkout's file, copied");
    assert.equal(statSync(join(worktree, '.env.abs')).mode & 0o777, 0o600);
    for (const rel of ['.env.abs', '.env.chain']) {
      // The chain reaches the copy (through the worktree's .env.abs) or is one itself: inside the worktree either way.
      assert.equal(readFileSync(join(worktree, rel), 'utf8'), 'SECRET=1\n');
      assert.ok(realpathSync(join(worktree, rel)).startsWith(`${worktree}/`), `${rel} resolves inside the worktree`);
    }
    writeFileSync(join(worktree, '.env.abs'), 'agent\n');
    assert.equal(readFileSync(join(repo, 'local', 'env.real'), 'utf8'), 'SECRET=1\n', "the person's file is untouched");
    assert.equal(result.copied, 2);
    assert.deepEqual(
      [...result.skipped].sort((a, b) => a.path.localeCompare(b.path)),
      [
        { path: '.env.dir', why: 'a symlink to a folder the worktree does not have' },
        { path: '.env.gone', why: 'its target does not exist' },
        { path: '.env.pipe', why: 'not a regular file' },
        { path: '.env.sock', why: 'not a regular file' },
      ],
    );
    for (const rel of ['.env.dir', '.env.gone', '.env.pipe', '.env.sock']) assert.throws(() => lstatSync(join(worktree, rel)), /ENOENT/, `${rel}: no dangling link left`);
  });

  it('copies a sparse file with its holes, not as zeros on disk (bug 160)', async () => {
    const size = 64 * 1024 * 1024;
    const image = join(repo, '.env.img');
    writeFileSync(image, 'head');
    const fd = openSync(image, 'r+');
    writeSync(fd, 'tail', size - 4);
    closeSync(fd);
    chmodSync(image, 0o640);
    const result = await bringWorktreeFiles({ repo, worktree, copy: ['/.env.img'], link: [] });
    assert.equal(result.copied, 1);
    const copy = statSync(join(worktree, '.env.img'));
    assert.equal(copy.size, size);
    assert.equal(copy.mode & 0o777, 0o640);
    assert.ok(copy.blocks * 512 < 1024 * 1024, `the copy holds ${copy.blocks * 512} bytes on disk for ${statSync(image).blocks * 512} in the original`);
    assert.ok(readFileSync(join(worktree, '.env.img')).equals(readFileSync(image)), 'the same bytes');
  });

  it('does not write through a worktree folder that is a symlink leading out', async () => {
    mkdirSync(join(root, 'elsewhere'));
    symlinkSync(join(root, 'elsewhere'), join(worktree, 'sub'));
    const result = await bringWorktreeFiles({ repo, worktree, copy: ['sub/.env'], link: [] });
    assert.equal(existsSync(join(root, 'elsewhere', '.env')), false);
    assert.deepEqual(result.skipped, [{ path: 'sub/.env', why: 'its folder leads outside the worktree' }]);
  });

  it('links a folder whole instead of copying it', async () => {
    const result = await bringWorktreeFiles({ repo, worktree, copy: ['node_modules/'], link: ['node_modules'] });
    const link = join(worktree, 'node_modules');
    assert.ok(lstatSync(link).isSymbolicLink());
    assert.equal(readlinkSync(link), join(repo, 'node_modules'));
    assert.equal(readFileSync(join(link, 'pkg', 'index.js'), 'utf8'), 'module.exports = 1;\n');
    assert.equal(result.linked, 1);
    assert.equal(result.copied, 0, 'what is linked is not copied as well');
  });

  it('a link glob that matches a whole folder links the folder alone, reporting nothing skipped inside it', async () => {
    // git lists a wholly matching folder and, again, the matching files in it.
    mkdirSync(join(repo, 'onlylogs'));
    writeFileSync(join(repo, 'onlylogs', 'z.log'), 'z\n');
    const result = await bringWorktreeFiles({ repo, worktree, copy: [], link: ['*.log'] });
    assert.deepEqual(result.skipped, []);
    assert.equal(result.linked, 2, 'debug.log and onlylogs/');
    assert.ok(lstatSync(join(worktree, 'onlylogs')).isSymbolicLink());
    assert.equal(readFileSync(join(worktree, 'onlylogs', 'z.log'), 'utf8'), 'z\n');
  });

  it('a link whose target does not exist, or loops, is skipped with the reason, and the others are linked (bug 56)', async () => {
    // A build's `result` link whose target was collected, and a loop: ignored, matched by a link glob.
    symlinkSync(join(root, 'collected', 'result'), join(repo, 'result.log'));
    symlinkSync('loop-b.log', join(repo, 'loop-a.log'));
    symlinkSync('loop-a.log', join(repo, 'loop-b.log'));
    const result = await bringWorktreeFiles({ repo, worktree, copy: [], link: ['*.log'] });
    assert.equal(result.linked, 1, 'debug.log');
    assert.deepEqual(
      [...result.skipped].sort((a, b) => a.path.localeCompare(b.path)),
      [
        { path: 'loop-a.log', why: 'a symlink loop' },
        { path: 'loop-b.log', why: 'a symlink loop' },
        { path: 'result.log', why: 'its target does not exist' },
      ],
    );
    assert.equal(existsSync(join(root, 'collected')), false, 'nothing made where the link pointed');
  });

  it('honours .worktreeinclude (gitignore-style, comments and all) like copy', async () => {
    writeFileSync(join(repo, '.worktreeinclude'), '# local settings\n/.env.local\n*.log\n');
    const result = await bringWorktreeFiles({ repo, worktree, copy: [], link: [] });
    assert.ok(existsSync(join(worktree, '.env.local')));
    assert.ok(existsSync(join(worktree, 'debug.log')));
    assert.equal(existsSync(join(worktree, '.env')), false);
    assert.equal(existsSync(join(worktree, 'sub', '.env')), false);
    assert.equal(result.copied, 2);
  });

  it('does nothing (and runs no git) without copy, link or .worktreeinclude', async () => {
    const result = await bringWorktreeFiles({ repo: join(root, 'not-a-repo'), worktree, copy: [], link: [] });
    assert.deepEqual(result, { copied: 0, linked: 0, skipped: [] });
  });
});
