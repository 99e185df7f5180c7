/**
 * A file named by `copy` on a file system that stopped answering (bug 214): a real FUSE mount over
 * one file of a real repository that answers the kernel's INIT, and GETATTR unless told `noattr`
 * (then even its lstat waits, as an sshfs or NFS mount whose server went away once the attribute
 * cache expired), and never answers OPEN or READ. Needs root and /dev/fuse; skipped without them.
 */
import * as assert from 'node:assert/strict';
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { placeWorktreeFiles, planWorktreeFiles } from '../../../../src/core/repoConfig/worktreeFiles';
import { git } from '../coordinator/coordinatorFixture';

/** The FUSE server (raw protocol, no libfuse): killing it aborts the connection, failing whatever waits. */
const HUNG_FS = `
import ctypes, os, struct, sys
target, size, noattr = sys.argv[1], int(sys.argv[2]), sys.argv[3] == 'noattr'
fd = os.open('/dev/fuse', os.O_RDWR)
libc = ctypes.CDLL(None, use_errno=True)
opts = f'fd={fd},rootmode=100644,user_id=0,group_id=0,allow_other'.encode()
if libc.mount(b'hungfile', target.encode(), b'fuse', ctypes.c_ulong(6), opts) != 0:
    sys.exit('mount failed: ' + os.strerror(ctypes.get_errno()))
print('mounted', flush=True)
attr = struct.pack('<6Q3I7I', 1, size, 1, 0, 0, 0, 0, 0, 0, 0o100644, 1, 0, 0, 0, 4096, 0)
def reply(unique, err=0, body=b''):
    os.write(fd, struct.pack('<IiQ', 16 + len(body), -err, unique) + body)
while True:
    try:
        req = os.read(fd, 1 << 20)
    except OSError:
        break
    length, opcode, unique = struct.unpack_from('<IIQ', req)
    if opcode == 26:
        reply(unique, 0, struct.pack('<IIIIHHIIHHI7I', 7, 31, 0, 0, 0, 0, 4096, 1, 0, 0, 0, *([0] * 7)))
    elif opcode == 3 and not noattr:
        reply(unique, 0, struct.pack('<QII', 3600, 0, 0) + attr)
    elif opcode in (3, 14, 15):
        continue
    elif opcode == 38:
        break
    else:
        reply(unique, 38)
`;

function canMountFuse(): boolean {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  try {
    accessSync('/dev/fuse', constants.R_OK | constants.W_OK);
    execFileSync('python3', ['-c', 'import ctypes']);
    return true;
  } catch {
    return false;
  }
}

/** A repository ignoring `.env` and `/.data/`, with `.env` made and a worktree added. */
function makeRepo(repo: string): string {
  mkdirSync(repo);
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(join(repo, '.gitignore'), '.env\n/.data/\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'init');
  writeFileSync(join(repo, '.env'), '');
  git(repo, 'worktree', 'add', '-q', '-b', 'paddock/x', `${repo}-wt`);
  return `${repo}-wt`;
}

/** Settles within `ms`, or 'still waiting'. */
function within<T>(work: Promise<T>, ms: number): Promise<T | 'still waiting'> {
  return Promise.race([work, new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), ms))]);
}

for (const mode of ['open', 'noattr'] as const) {
  const what = mode === 'open' ? 'its open never answered' : 'even its lstat never answered';
  describe(`a copy from a file system that stopped answering, ${what} (bug 214)`, function () {
    this.timeout(30_000);
    let root: string;
    let repo: string;
    let worktree: string;
    let hung: string;
    let server: ChildProcess | undefined;
    const mounts: string[] = [];

    before(function () {
      if (!canMountFuse()) this.skip();
    });
    beforeEach(async () => {
      root = realpathSync(mkdtempSync(join(tmpdir(), 'paddock-hung-')));
      repo = join(root, 'repo');
      worktree = makeRepo(repo);
      hung = join(repo, '.env');
      writeFileSync(join(root, 'hungfs.py'), HUNG_FS);
      server = spawn('python3', [join(root, 'hungfs.py'), hung, '5', mode], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise((resolve) => server!.stdout!.once('data', resolve));
    });
    afterEach(async () => {
      // Ending the server aborts the connection: anything still waiting on the file fails at once.
      if (server && server.exitCode === null) {
        server.kill('SIGKILL');
        await new Promise((resolve) => server!.once('exit', resolve));
      }
      for (const m of [hung, ...mounts.splice(0)]) {
        try {
          execFileSync('umount', ['-l', m], { stdio: 'ignore' });
        } catch {
          // gone with its server
        }
      }
      rmSync(root, { recursive: true, force: true });
    });

    it('fails the start in one sentence at its limit, leaving nothing', async () => {
      const started = Date.now();
      const plan = await planWorktreeFiles({ repo, copy: ['/.env'], link: [] });
      const placing = placeWorktreeFiles(plan!, worktree, 1_500).then(
        () => 'copied',
        (err: unknown) => err as Error,
      );
      const outcome = await within(placing, 6_000);
      assert.notEqual(outcome, 'still waiting', 'the copy waited on the file for good');
      assert.notEqual(outcome, 'copied');
      assert.equal((outcome as Error).message, 'Could not copy .env into the worktree: ETIMEDOUT (the copy did not finish within 2 s and was stopped (its file system does not answer))');
      assert.ok(Date.now() - started < 5_000, `took ${Date.now() - started} ms`);
      assert.equal(existsSync(join(worktree, '.env')), false);
    });

    it('a process whose copy met the hung file exits when it is done', async () => {
      const module = require.resolve('../../../../src/core/repoConfig/worktreeFiles');
      const code = `const W = require(${JSON.stringify(module)});
        W.planWorktreeFiles({ repo: ${JSON.stringify(repo)}, copy: ['/.env'], link: [] }).then((p) => W.placeWorktreeFiles(p, ${JSON.stringify(worktree)})).catch(() => undefined);
        setTimeout(() => process.exit(3), 1_500);`;
      const child = spawn(process.execPath, ['-e', code], { stdio: 'ignore' });
      const exited = await within(new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c))), 8_000);
      if (exited === 'still waiting') child.kill('SIGKILL');
      assert.equal(exited, 3, 'the process never exited: a pool thread waits on the file');
    });

    it("another repository's start placing files from a mount of its own at the same time is not failed with it", async () => {
      const other = join(root, 'other');
      const otherWorktree = makeRepo(other);
      // The other repository's .data is a healthy bind mount: its files go to a helper child too.
      const outside = join(root, 'outside');
      mkdirSync(outside);
      for (let i = 0; i < 20; i++) writeFileSync(join(outside, `f${i}`), `${i}\n`);
      mkdirSync(join(other, '.data'));
      execFileSync('mount', ['--bind', outside, join(other, '.data')]);
      mounts.push(join(other, '.data'));
      const hungPlan = await planWorktreeFiles({ repo, copy: ['/.env'], link: [] });
      const hungPlacing = placeWorktreeFiles(hungPlan!, worktree, 3_000).catch((err: Error) => err);
      await new Promise((resolve) => setTimeout(resolve, 300)); // the hung copy is under way
      const plan = await planWorktreeFiles({ repo: other, copy: ['/.data/'], link: [] });
      const outcome = await within(
        placeWorktreeFiles(plan!, otherWorktree, 3_000).catch((err: Error) => err),
        6_000,
      );
      assert.deepEqual(outcome, { copied: 20, linked: 0, skipped: [] });
      assert.equal(readdirSync(join(otherWorktree, '.data')).length, 20);
      assert.ok((await hungPlacing) instanceof Error);
    });
  });
}
