/** Making folders with an end (bug 113): every level with its mode, a folder already there, a file in the way, /proc. */
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeDirs, makeDirsSync } from '../../../../src/core/common/makeDirs';

const forms: [string, (dir: string, mode?: number) => Promise<void>][] = [
  ['makeDirsSync', async (dir, mode) => makeDirsSync(dir, mode)],
  ['makeDirs', makeDirs],
];

for (const [name, make] of forms) {
  describe(name, () => {
    let root!: string;
    let umask!: number;
    beforeEach(() => {
      root = mkdtempSync(join(tmpdir(), 'paddock-dirs-'));
      umask = process.umask(0o022);
    });
    afterEach(() => {
      process.umask(umask);
      rmSync(root, { recursive: true, force: true });
    });

    const modeOf = (p: string) => statSync(p).mode & 0o777;

    it('makes every missing level, each with the mode given, and leaves the ones there as they were', async () => {
      mkdirSync(join(root, 'a'), { mode: 0o755 });
      await make(join(root, 'a', 'b', 'c', 'd'), 0o700);
      assert.equal(modeOf(join(root, 'a')), 0o755, 'a folder already there keeps its mode');
      for (const level of ['a/b', 'a/b/c', 'a/b/c/d']) assert.equal(modeOf(join(root, level)), 0o700, level);
      await make(join(root, 'a', 'b', 'c', 'd'), 0o700);
      await make(join(root, 'a', 'b'), 0o700);
      await make(join(root, 'e', '..', 'f', '.'));
      assert.equal(modeOf(join(root, 'f')), 0o755, 'without a mode: 0777 less the umask, as mkdir');
    });

    it('refuses a file in the place or on the way with the errors Node gives (EEXIST, ENOTDIR)', async () => {
      writeFileSync(join(root, 'file'), 'x');
      await assert.rejects(make(join(root, 'file')), { code: 'EEXIST', syscall: 'mkdir' });
      await assert.rejects(make(join(root, 'file', 'below', 'deeper')), { code: 'ENOTDIR' });
    });

    // Two makers of paths under the same missing folders (the CLI and a window taking locks at once): one's
    // mkdir says ENOENT, and by its look the other has made the folder above. That is no /proc: try again.
    // The sync form makes one path at a time in one process: no race to lose.
    if (name === 'makeDirs') {
      it('many makers of paths under the same missing folders, at once, all succeed', async () => {
        for (let round = 0; round < 20; round++) {
          const base = join(root, `r${round}`, 'a', 'b', 'c');
          await Promise.all(Array.from({ length: 24 }, (_, i) => make(join(base, i % 2 ? 'ops' : `d${i}`), 0o700)));
        }
      });
    }

    // Node 20's recursive mkdir looped here for ever at full CPU: mkdir(2) says ENOENT, and /proc exists.
    it('says in one sentence, at once, that a folder under /proc cannot be made (bug 113)', async function () {
      if (!statSync('/proc', { throwIfNoEntry: false })?.isDirectory()) this.skip();
      this.timeout(5000);
      await assert.rejects(make('/proc/paddock-test', 0o700), { message: '/proc/paddock-test could not be created: /proc takes no new folder in it' });
      await assert.rejects(make('/proc/paddock-test/a/b'), { message: '/proc/paddock-test could not be created: /proc takes no new folder in it' });
    });
  });
}
