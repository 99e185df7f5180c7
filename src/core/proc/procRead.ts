/**
 * What a failed read of a process's /proc files says. ENOENT or ESRCH: the process is gone (it exited
 * between the walk and the read). Any other error (EMFILE: this process is out of file descriptors,
 * ENOMEM, EIO) says nothing about the process: read as "gone", a live lock owner or worker was judged
 * dead, as a `ps` that failed was on the portable backend (bugs 190, 211). Such a read throws.
 */
import { describeError, failure } from '../common/errors';

/** Whether `err`, from reading a /proc file of a process, means the process is gone; `denied` too: another user's. */
export function saysGone(err: unknown, denied = false): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ESRCH' || (denied && (code === 'EACCES' || code === 'EPERM'));
}

/** `undefined` when `err` says the process is gone (see saysGone); else throws the failed read in words. */
export function goneOrThrow(file: string, err: unknown, denied = false): undefined {
  if (saysGone(err, denied)) return undefined;
  throw failure(`Could not read ${file}: ${describeError(err, 200)}.`);
}
