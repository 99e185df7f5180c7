import { execFileSync } from 'node:child_process';
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** The file `fillDisk` writes in a folder. */
export const FILLER = 'filler';

/**
 * Fills the disk of `dir` to the last page with one file, `dir/filler`: large writes first, then small
 * ones for what the last large one could not take.
 */
export function fillDisk(dir: string): void {
  const fd = openSync(join(dir, FILLER), 'w');
  try {
    for (const size of [64 * 1024, 512]) {
      try {
        for (;;) writeSync(fd, Buffer.alloc(size, 0x66));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      }
    }
  } finally {
    closeSync(fd);
  }
}

/** Gives back what `fillDisk` took. */
export function freeDisk(dir: string): void {
  rmSync(join(dir, FILLER), { force: true });
}

/**
 * Mounts a tmpfs with `options` (e.g. `size=1m`) on the folder `dir`, or skips the test: mounting needs
 * root and a container that allows it. Unmount with `umount -l dir`.
 */
export function mountTmpfsOrSkip(test: Mocha.Context, dir: string, options: string): void {
  if (process.getuid?.() !== 0) test.skip();
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir]);
  } catch {
    test.skip(); // no mount privilege in this container
  }
}
