/**
 * Copied symlinks settled once placed (copiedLinks.ts, bug 161's second review): one is kept only
 * where it really leads inside the worktree (or into what `link` brought), whatever tracked folder
 * link it passes, and a target this user cannot read is left out with why, not failing the start.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolvedTarget } from '../../../../src/core/repoConfig/copiedLinks';
import { placeWorktreeFiles, planWorktreeFiles, type WorktreeFilesResult } from '../../../../src/core/repoConfig/worktreeFiles';
import { git } from '../coordinator/coordinatorFixture';

const FILES_MODULE = require.resolve('../../../../src/core/repoConfig/worktreeFiles');
const NOBODY = 65534;
const byPath = (r: WorktreeFilesResult) => [...r.skipped].sort((a, b) => a.path.localeCompare(b.path));

describe('copied symlinks: kept only where they lead inside the worktree', function () {
  this.timeout(60_000);
  let root: string;
  let repo: string;
  let worktree: string;

  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'paddock-links-')));
    repo = join(root, 'repo');
    mkdirSync(repo);
    mkdirSync(join(root, 'outside'));
    writeFileSync(join(root, 'outside', 'secret'), 'OUTSIDE\n');
    git(repo, 'init', '-q', '-b', 'main');
    writeFileSync(join(repo, '.gitignore'), '.env*\nlocal/\nlocked/\nopen/\nnode_modules/\n');
    // Tracked folder links: one out of the repository, one climbing out and back into it by its name
    // (in the worktree, a sibling, it reaches the person's checkout).
    symlinkSync(join(root, 'outside'), join(repo, 'shared'));
    symlinkSync(join('..', 'repo', 'local'), join(repo, 'back'));
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'init');
    mkdirSync(join(repo, 'local'));
    writeFileSync(join(repo, 'local', 'env'), 'L=1\n');
    worktree = join(root, 'wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/x', worktree);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  async function bring(copy: string[], link: string[] = []): Promise<WorktreeFilesResult> {
    const plan = await planWorktreeFiles({ repo, copy, link });
    assert.ok(plan);
    return placeWorktreeFiles(plan, worktree);
  }

  it('a copied link through a tracked folder link is left out when it leads outside, and copied when it leads into the checkout', async () => {
    symlinkSync('shared/secret', join(repo, '.env.out'));
    symlinkSync('back/env', join(repo, '.env.back'));
    const result = await bring(['.env.out', '.env.back']);
    assert.deepEqual(byPath(result), [{ path: '.env.out', why: 'a symlink pointing outside the repository' }]);
    assert.throws(() => lstatSync(join(worktree, '.env.out')), /ENOENT/, 'no link left leading out');
    assert.ok(lstatSync(join(worktree, '.env.back')).isFile(), "the checkout's file, copied, not a link into the checkout");
    assert.equal(readFileSync(join(worktree, '.env.back'), 'utf8'), 'L=1\n');
    writeFileSync(join(worktree, '.env.back'), 'agent\n');
    assert.equal(readFileSync(join(repo, 'local', 'env'), 'utf8'), 'L=1\n', "the person's file is untouched");
    assert.equal(readFileSync(join(root, 'outside', 'secret'), 'utf8'), 'OUTSIDE\n');
    assert.equal(result.copied, 1);
  });

  it('a copied link into a folder `link` brought is kept as it is', async () => {
    mkdirSync(join(repo, 'node_modules', 'pkg'), { recursive: true });
    writeFileSync(join(repo, 'node_modules', 'pkg', 'index.js'), 'module.exports = 1;\n');
    symlinkSync('node_modules/pkg/index.js', join(repo, '.env.nm'));
    const result = await bring(['.env.nm'], ['node_modules']);
    assert.deepEqual(result.skipped, []);
    assert.equal(readlinkSync(join(worktree, '.env.nm')), 'node_modules/pkg/index.js');
    assert.equal(result.copied, 1);
    assert.equal(result.linked, 1);
  });

  it('a link whose target this user cannot read is left out with why, and the start goes on (copy and link)', function () {
    if (process.getuid?.() !== 0 || spawnSync('setpriv', ['--version']).status !== 0) this.skip(); // needs root to become nobody
    // As a container leaves them: a folder of root's nobody may not enter, and a file of root's nobody may not read.
    mkdirSync(join(repo, 'locked'));
    writeFileSync(join(repo, 'locked', 'env'), 'S=1\n');
    mkdirSync(join(repo, 'open'));
    writeFileSync(join(repo, 'open', 'env'), 'S=2\n');
    symlinkSync('locked/env', join(repo, '.env.locked'));
    symlinkSync('open/env', join(repo, '.env.file'));
    symlinkSync('locked/env', join(repo, '.env.shared'));
    writeFileSync(join(repo, '.env.plain'), 'S=3\n'); // named itself, not through a link (the third review)
    mkdirSync(join(repo, 'shut'));
    writeFileSync(join(repo, 'shut', '.env.deep'), 'S=4\n'); // listed by git, in a folder nobody can read but not search
    spawnSync('chown', ['-R', `${NOBODY}:${NOBODY}`, root]);
    for (const p of ['locked', 'locked/env', 'open', 'open/env', '.env.plain', 'shut']) chownSync(join(repo, p), 0, 0);
    chmodSync(join(repo, 'locked'), 0o700);
    chmodSync(join(repo, 'shut'), 0o744);
    chmodSync(join(repo, 'open', 'env'), 0o600);
    chmodSync(join(repo, '.env.plain'), 0o600);
    const script = `
      const W = require(${JSON.stringify(FILES_MODULE)});
      (async () => {
        const plan = await W.planWorktreeFiles({ repo: ${JSON.stringify(repo)}, copy: ['.env.locked', '.env.file', '.env.plain', 'shut/.env.deep'], link: ['.env.shared'] });
        process.stdout.write(JSON.stringify(await W.placeWorktreeFiles(plan, ${JSON.stringify(worktree)})));
      })().catch((e) => process.stdout.write(JSON.stringify({ error: e.message })));`;
    const res = spawnSync('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath, '-e', script], {
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, HOME: root },
    });
    assert.equal(res.status, 0, res.stderr);
    const result = JSON.parse(res.stdout) as WorktreeFilesResult & { error?: string };
    assert.equal(result.error, undefined, 'the start is not failed');
    assert.deepEqual(byPath(result), [
      { path: '.env.file', why: 'its target cannot be read: EACCES' },
      { path: '.env.locked', why: 'its target cannot be read: EACCES' },
      { path: '.env.plain', why: 'its target cannot be read: EACCES' },
      { path: '.env.shared', why: 'its target cannot be read: EACCES' },
      { path: 'shut/.env.deep', why: 'its target cannot be read: EACCES' },
    ]);
    for (const rel of ['.env.file', '.env.locked', '.env.plain', '.env.shared']) assert.throws(() => lstatSync(join(worktree, rel)), /ENOENT/, `${rel}: nothing left`);
  });

  it('a fault of ours looking at a target (a NUL in the path, not a string) is thrown, not a skip (third review of bug 161)', async () => {
    await assert.rejects(resolvedTarget('a\0b'), { code: 'ERR_INVALID_ARG_VALUE' });
    await assert.rejects(resolvedTarget(42 as unknown as string), { code: 'ERR_INVALID_ARG_TYPE' });
  });
});
