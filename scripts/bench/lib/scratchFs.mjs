// Where the bench's repositories and worktrees live. Measured on this VM
// (issue 17, "start figures grow run after run"): its root filesystem is ext4
// WITHOUT a journal, and such an ext4 will not hand out an inode freed in the
// last 60 s (6 min while its inode-table block is still dirty) —
// `recently_deleted()` in fs/ext4/ialloc.c, checked only when there is no
// journal. Each new file's inode search walks past every recently freed one,
// so after a run deleted two 5,000-file worktrees, the next run's checkout
// scanned ~10,000 inodes per file: the same `git worktree add` took 0.29 s,
// then 0.43, 1.6, 3.1 and 3.9 s of CPU (perf: 62 % in recently_deleted and
// its buffer lookups), and 0.15 s every time on a journaled ext4 on the same
// disk. A person's disk (journaled ext4, APFS, btrfs, xfs) does not do this,
// so when the temp dir is on a journal-less ext4 and we are root, the bench
// runs on a journaled ext4 made for it on a loop device (sparse file, removed
// at the end); otherwise it says the figures may grow and goes on.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The mount (device, mount point, type) holding `dir`: the longest mount point that prefixes it. */
function mountOf(dir) {
  const mounts = readFileSync('/proc/mounts', 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [device, point, type] = line.split(' ');
      return { device, point: point.replace(/\\040/g, ' '), type };
    });
  const holding = mounts.filter((m) => dir === m.point || dir.startsWith(m.point.endsWith('/') ? m.point : `${m.point}/`));
  return holding.sort((a, b) => b.point.length - a.point.length)[0];
}

/** True when `dir` is on an ext4 that has no journal (jbd2 lists every journaled ext4 as `<dev>-8`). */
export function onJournalLessExt4(dir) {
  const mount = mountOf(dir);
  if (!mount || mount.type !== 'ext4' || !existsSync('/proc/fs/jbd2')) return false;
  const dev = mount.device.split('/').pop();
  return !existsSync(join('/proc/fs/jbd2', `${dev}-8`));
}

/**
 * Points TMPDIR (read by os.tmpdir() on every call, and inherited by every
 * process the bench starts) at a journaled scratch ext4 when the temp dir is
 * on a journal-less one. Returns a description for the results and a release
 * function that unmounts and deletes it.
 */
export function useJournaledScratch({ sizeGb = 8, disabled = false } = {}) {
  const base = tmpdir();
  if (disabled || !onJournalLessExt4(base)) return { filesystem: describe(base), release: () => {} };
  if (process.getuid?.() !== 0) {
    console.log(`[bench] ${base} is on an ext4 without a journal: file creation slows after deletions (see scripts/bench/lib/scratchFs.mjs); not root, so measuring there anyway.`);
    return { filesystem: `${describe(base)} (no journal: figures that create files after deletions are inflated)`, release: () => {} };
  }
  const dir = mkdtempSync(join(base, 'pb-scratchfs-'));
  const image = join(dir, 'fs.img');
  const point = join(dir, 'mnt');
  mkdirSync(point);
  try {
    execFileSync('truncate', ['-s', `${sizeGb}G`, image]);
    execFileSync('mkfs.ext4', ['-q', '-F', image], { stdio: 'ignore' });
    execFileSync('mount', ['-o', 'loop', image, point]);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    console.log(`[bench] could not make a journaled scratch ext4 (${err.message.split('\n')[0]}); measuring on ${base}, whose figures may grow run after run.`);
    return { filesystem: `${describe(base)} (no journal)`, release: () => {} };
  }
  process.env.TMPDIR = point;
  console.log(`[bench] ${base} is on an ext4 without a journal; measuring on a journaled ext4 at ${point} (loop device).`);
  return {
    filesystem: `journaled ext4 on a loop device (the temp dir's ${describe(base)} has no journal)`,
    release: () => {
      process.env.TMPDIR = base;
      try {
        execFileSync('umount', [point], { stdio: 'ignore' });
      } catch {
        // A process of a failed figure may still hold a file there: detach now, freed when it lets go.
        execFileSync('umount', ['-l', point]);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function describe(dir) {
  const mount = mountOf(dir);
  return mount ? `${mount.type} at ${mount.point}` : 'unknown filesystem';
}
