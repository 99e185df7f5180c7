/**
 * Matches of copy, link and .worktreeinclude that git never lists (a FIFO, a socket, a device),
 * and the timeline's naming of every path left out (bug 211), on real repositories, a real FIFO,
 * socket and device.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeWorktreeFiles, placeWorktreeFiles, planWorktreeFiles } from '../../../../src/core/repoConfig/worktreeFiles';
import { git } from '../coordinator/coordinatorFixture';

describe('worktree files git never lists: FIFOs, sockets, devices (bug 211)', function () {
  this.timeout(30_000);
  let root: string;
  let repo: string;
  let worktree: string;

  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'paddock-wtsp-')));
    repo = join(root, 'repo');
    mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    writeFileSync(join(repo, '.gitignore'), '.env*\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'init');
    writeFileSync(join(repo, '.env'), 'A=1\n');
    worktree = join(root, 'wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/x', worktree);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('names each FIFO, socket and device a copy or .worktreeinclude pattern matches, links those link names, and copies the rest', async () => {
    mkdirSync(join(repo, 'sub'));
    execFileSync('mkfifo', [join(repo, '.env.local'), join(repo, 'sub', 'included.fifo'), join(repo, 'unmatched.fifo'), join(repo, 'served.fifo')]);
    const server = createServer();
    server.listen(join(repo, 'sub', '.env.sock'));
    await once(server, 'listening');
    const asRoot = process.getuid?.() === 0;
    // A device node needs root; without it the device line of the expectation is left out.
    if (asRoot) execFileSync('mknod', [join(repo, '.env.dev'), 'c', '1', '5']);
    writeFileSync(join(repo, '.worktreeinclude'), '# comment\r\nsub/included.fifo\r\n');
    try {
      const plan = await planWorktreeFiles({ repo, copy: ['.env*'], link: ['served.fifo'] });
      const result = await placeWorktreeFiles(plan!, worktree);
      assert.equal(result.copied, 1, '.env copied');
      assert.equal(existsSync(join(worktree, '.env')), true);
      // A FIFO a secrets tool serves keeps serving through the link; nothing reads it to make one.
      assert.equal(result.linked, 1);
      assert.equal(readlinkSync(join(worktree, 'served.fifo')), join(repo, 'served.fifo'));
      const expected = [
        ...(asRoot ? [{ path: '.env.dev', why: 'not a regular file (a device)' }] : []),
        { path: '.env.local', why: 'not a regular file (a FIFO)' },
        { path: 'sub/.env.sock', why: 'not a regular file (a socket)' },
        { path: 'sub/included.fifo', why: 'not a regular file (a FIFO)' },
      ];
      assert.deepEqual([...result.skipped].sort((a, b) => (a.path < b.path ? -1 : 1)), expected);
      const lines = describeWorktreeFiles(result);
      assert.equal(lines.length, 1);
      assert.match(lines[0], /^copied 1 and linked 1 untracked path\(s\) into the worktree; skipped .*\.env\.local \(not a regular file \(a FIFO\)\), /);
      assert.equal(existsSync(join(worktree, '.env.local')), false, 'never made, never opened');
    } finally {
      server.close();
    }
  });

  it('looks into no nested repository or submodule, as git does not (the review of bug 211)', async () => {
    // An untracked clone (a .git folder) and a submodule-like checkout (a .git file), each with FIFOs.
    const clone = join(repo, 'vendor', 'lib');
    mkdirSync(clone, { recursive: true });
    git(clone, 'init', '-q');
    const sub = join(repo, 'modules', 'm');
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, '.git'), 'gitdir: ../../.git/modules/m\n');
    execFileSync('mkfifo', [join(clone, '.env.fifo'), join(clone, 'served.fifo'), join(sub, '.env.fifo'), join(repo, '.env.top')]);
    const plan = await planWorktreeFiles({ repo, copy: ['.env*'], link: ['served.fifo'] });
    assert.deepEqual(plan!.unlisted, [{ path: '.env.top', why: 'not a regular file (a FIFO)' }]);
    assert.deepEqual(plan!.linked, []);
    const result = await placeWorktreeFiles(plan!, worktree);
    assert.equal(result.linked, 0);
    assert.equal(existsSync(join(worktree, 'vendor', 'lib', 'served.fifo')), false);
  });

  it('names every path left out, however many, in lines the store does not cut', () => {
    const skipped = Array.from({ length: 60 }, (_, i) => ({ path: `deep/folder/${'n'.repeat(40)}/.env.${String(i).padStart(2, '0')}`, why: 'not a regular file (a FIFO)' }));
    const lines = describeWorktreeFiles({ copied: 2, linked: 0, skipped });
    assert.ok(lines.length > 1);
    assert.match(lines[0], /^copied 2 and linked 0 untracked path\(s\) into the worktree; skipped /);
    for (const line of lines) assert.ok(line.length <= 2000, `a line of ${line.length} characters would be cut`);
    for (const line of lines.slice(1)) assert.match(line, /^also skipped /);
    const all = lines.join('\n');
    for (const s of skipped) assert.ok(all.includes(`${s.path} (${s.why})`), `${s.path} is not named`);
    assert.deepEqual(describeWorktreeFiles({ copied: 0, linked: 0, skipped: [] }), []);
  });
});
