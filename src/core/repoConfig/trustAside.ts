/**
 * Moving a damaged allow list aside (bug 111) to a name of its own, and back when the new list could
 * not be written. rename(2) replaces whatever holds the target name without a word, so two lists moved
 * aside in the same millisecond (or after the clock stepped back) lost the first one: the name is
 * first claimed with an exclusive create (an empty file, or an empty folder for a folder in the list's
 * place), which only one caller can win, and the list is then renamed over its own claim.
 */
import { promises as fs } from 'node:fs';

/** Names tried after `<list>.unreadable-<ms>` (`-2`, `-3`, …) before the move is refused. */
const MAX_ASIDE_NAMES = 100;

/** The one thrown when the list could not be moved aside: what stopped it, in words the caller completes. */
export class AsideRefused extends Error {
  constructor(readonly reason: unknown) {
    super('the list could not be moved aside');
  }
}

/**
 * Renames `file` (a folder when `folder`) to a name no other move aside holds and returns that name;
 * throws AsideRefused with the list left as it is. The caller holds the list's lock.
 */
export async function moveAside(file: string, now: Date, folder: boolean): Promise<string> {
  for (let n = 1; n <= MAX_ASIDE_NAMES; n++) {
    const aside = `${file}.unreadable-${now.getTime()}${n === 1 ? '' : `-${n}`}`;
    try {
      await claim(aside, folder);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw new AsideRefused(err);
    }
    try {
      await fs.rename(file, aside);
    } catch (err) {
      await release(aside, folder);
      throw new AsideRefused(err);
    }
    return aside;
  }
  throw new AsideRefused(new Error(`every name from ${file}.unreadable-${now.getTime()} to -${MAX_ASIDE_NAMES} is taken`));
}

/** Puts the list moved aside back where it was; false when something holds its place or it could not be. */
export async function putBack(aside: string, file: string): Promise<boolean> {
  try {
    // A write that failed after its rename (the folder's fsync) left the new list in place: keep both.
    await fs.lstat(file);
    return false;
  } catch {
    // Nothing in its place, as expected.
  }
  return fs.rename(aside, file).then(
    () => true,
    () => false,
  );
}

async function claim(aside: string, folder: boolean): Promise<void> {
  if (folder) {
    await fs.mkdir(aside, { mode: 0o700 });
    return;
  }
  const handle = await fs.open(aside, 'wx', 0o600);
  await handle.close();
}

async function release(aside: string, folder: boolean): Promise<void> {
  await (folder ? fs.rmdir(aside) : fs.unlink(aside)).catch(() => undefined);
}
