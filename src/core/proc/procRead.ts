/**
 * What a failed read of a process's /proc files says. ENOENT or ESRCH: the process is gone (it exited
 * between the walk and the read). Any other error (EMFILE: this process is out of file descriptors,
 * ENOMEM, EIO) says nothing about the process: read as "gone", a live lock owner or worker was judged
 * dead, as a `ps` that failed was on the portable backend (bugs 190, 209). Such a read throws.
 * EACCES or EPERM: another user's process under a /proc mounted hidepid=1 (systemd's ProtectProc=noaccess),
 * or a non-dumpable one: not a process of ours (this user can read its own), skipped by a walk and no
 * owner we recorded. Thrown, every walk of /proc failed there and no stop could end an agent (bug 209).
 */
import { describeError, failure } from '../common/errors';

/** Whether `err`, from reading a /proc file of a process, means the process is gone or is not ours (another user's). */
export function saysGone(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ESRCH' || code === 'EACCES' || code === 'EPERM';
}

/** `undefined` when `err` says the process is gone or not ours (see saysGone); else throws the failed read in words. */
export function goneOrThrow(file: string, err: unknown): undefined {
  if (saysGone(err)) return undefined;
  throw failure(`Could not read ${file}: ${describeError(err, 200)}.`);
}
