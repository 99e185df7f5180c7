/**
 * A file named by `copy` on a file system that stopped answering (bug 216): a real FUSE mount over
 * one file that answers the kernel's INIT and GETATTR (so it lists and lstats as a plain file) and
 * never answers OPEN or READ, as an sshfs or NFS mount whose server went away. Needs root and
 * /dev/fuse; skipped without them.
 */
import * as assert from 'node:assert/strict';
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyRegularFile } from '../../../../src/core/repoConfig/copyRegular';

/** The FUSE server (raw protocol, no libfuse): killing it aborts the connection, failing whatever waits. */
const HUNG_FS = `
import ctypes, os, struct, sys
target, size = sys.argv[1], int(sys.argv[2])
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
    elif opcode == 3:
        reply(unique, 0, struct.pack('<QII', 3600, 0, 0) + attr)
    elif opcode in (14, 15):
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

describe('a copy from a file system that stopped answering (bug 216)', function () {
  this.timeout(30_000);
  let root: string;
  let hung: string;
  let server: ChildProcess | undefined;

  before(function () {
    if (!canMountFuse()) this.skip();
  });
  beforeEach(async () => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'paddock-hung-')));
    hung = join(root, '.env');
    writeFileSync(hung, '');
    writeFileSync(join(root, 'hungfs.py'), HUNG_FS);
    server = spawn('python3', [join(root, 'hungfs.py'), hung, '5'], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((resolve) => server!.stdout!.once('data', resolve));
  });
  afterEach(async () => {
    // Ending the server aborts the connection: anything still waiting on the file fails at once.
    if (server && server.exitCode === null) {
      server.kill('SIGKILL');
      await new Promise((resolve) => server!.once('exit', resolve));
    }
    try {
      execFileSync('umount', ['-l', hung], { stdio: 'ignore' });
    } catch {
      // gone with its server
    }
    rmSync(root, { recursive: true, force: true });
  });

  it('fails the copy in one sentence at its limit, leaving nothing, and never holds the process', async () => {
    const dest = join(root, 'copy');
    const started = Date.now();
    const copying = copyRegularFile(hung, dest, 1_500).then(
      () => 'copied',
      (err: unknown) => err as Error & { code?: string },
    );
    const outcome = await Promise.race([copying, new Promise<string>((resolve) => setTimeout(() => resolve('still waiting'), 6_000))]);
    assert.notEqual(outcome, 'still waiting', 'the copy waited on the file for good');
    assert.notEqual(outcome, 'copied');
    const err = outcome as Error & { code?: string };
    assert.equal(err.code, 'ETIMEDOUT');
    assert.equal(err.message, 'the copy did not finish within 2 s and was stopped (its file system does not answer)');
    assert.ok(Date.now() - started < 5_000, `took ${Date.now() - started} ms`);
    assert.equal(existsSync(dest), false);
  });

  it('a process whose copy met the hung file exits when it is done', async () => {
    const module = require.resolve('../../../../src/core/repoConfig/copyRegular');
    const code = `require(${JSON.stringify(module)}).copyRegularFile(${JSON.stringify(hung)}, ${JSON.stringify(join(root, 'copy'))}, 1000).catch(() => process.exit(3))`;
    const child = spawn(process.execPath, ['-e', code], { stdio: 'ignore' });
    const exited = await Promise.race([
      new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c))),
      new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 8_000)),
    ]);
    if (exited === 'hung') child.kill('SIGKILL');
    assert.equal(exited, 3, 'the process never exited: a pool thread waits on the file');
  });
});
