/**
 * A file-system error in words a person reads. Node's own message ("ENOTDIR: not a directory,
 * open '/…'") is the C library's: it names neither what was being done nor what to look at, and it
 * must never reach the person as it is (bug 50). Here it becomes what could not be done to which
 * path and why, in plain words; the store names its own parts on top of this (store/damagedPart.ts).
 */
import { constants } from 'node:os';
import { describeError } from './errors';

const errnoNames = constants.errno;

/** An error from a Node fs call: a code such as ENOTDIR, the call, and the path it was about. */
export interface FsError {
  code: string;
  syscall?: string;
  path?: string;
  dest?: string;
}

/**
 * Node's errno message: "CODE: description, syscall 'path'" with an optional " -> 'dest'"; a call on a
 * descriptor names no path ("ENOSPC: no space left on device, write": stdout on a full disk).
 */
const ERRNO_TEXT = /\b(E[A-Z0-9]{2,}): [^,'\n]*?, ([a-z_]+)\b(?: '([^'\n]*)'(?: -> '([^'\n]*)')?)?/g;

export function isFsError(err: unknown): err is Error & FsError {
  if (!(err instanceof Error)) return false;
  const { code, syscall } = err as NodeJS.ErrnoException;
  return typeof code === 'string' && /^E[A-Z0-9]+$/.test(code) && typeof syscall === 'string';
}

/** What `syscall` was doing to its path, as the end of "… could not be ___". */
export function fsActionWords(syscall: string | undefined): string {
  switch (syscall) {
    case 'scandir':
    case 'opendir':
      return 'listed';
    case 'mkdir':
    case 'mkdtemp':
      return 'created';
    case 'rename':
    case 'copyfile':
    case 'link':
    case 'symlink':
      return 'put in place';
    case 'unlink':
    case 'rmdir':
    case 'rm':
      return 'removed';
    case 'read':
      return 'read';
    case 'write':
    case 'fsync':
    case 'ftruncate':
    case 'truncate':
      return 'written';
    case 'stat':
    case 'lstat':
    case 'fstat':
    case 'access':
      return 'examined';
    case 'utime':
    case 'futime':
    case 'chmod':
    case 'fchmod':
      return 'updated';
    default:
      return 'opened';
  }
}

/**
 * The codes that say nothing can be written where the call was: a full disk, a used-up quota, a
 * read-only file system. One list, said in words by `fsReasonWords` like any other code, so a lock
 * that cannot be taken there (coordinator/lockUnwritable.ts) says it as every other write does.
 */
const UNWRITABLE_CODES: ReadonlySet<string> = new Set(['ENOSPC', 'EDQUOT', 'EROFS']);

/** The errno code of `err` when it is one of UNWRITABLE_CODES. */
export function unwritableCode(err: unknown): string | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && UNWRITABLE_CODES.has(code) ? code : undefined;
}

/** Why, in plain words: "it is a folder, not a file". */
export function fsReasonWords(code: string, syscall?: string): string {
  switch (code) {
    case 'ENOTDIR':
      return syscall === 'scandir' || syscall === 'opendir' || syscall === 'rmdir' ? 'it is a file, not a folder' : 'something on its path that should be a folder is a file';
    case 'EISDIR':
      return 'it is a folder, not a file';
    case 'EEXIST':
      return syscall === 'mkdir' ? 'something that is not a folder is in its place' : 'something else is already in its place';
    case 'ENOTEMPTY':
      return 'a folder that is not empty is in its place';
    case 'ENOENT':
      return 'it does not exist';
    case 'EACCES':
    case 'EPERM':
      return 'permission is denied';
    case 'ENOSPC':
      return 'the disk is full';
    case 'EDQUOT':
      return 'the disk quota is used up';
    case 'EFBIG':
      return "it would pass the limit on a file's size";
    case 'EROFS':
      return 'the file system is read-only';
    case 'EIO':
      return 'the disk reported an input/output error';
    case 'ELOOP':
      return 'it is a loop of symbolic links';
    case 'ENAMETOOLONG':
      return 'its name is too long';
    case 'EMFILE':
    case 'ENFILE':
      return 'too many files are open';
    case 'EBUSY':
      return 'it is in use';
    case 'ENXIO':
      return 'it is a FIFO, a socket or a device';
    case 'EINVAL':
      return 'the operation does not apply to it';
    default:
      return `the system refused (${code})`;
  }
}

/** Why an fs call failed, in plain words; a thrown value without an errno code, as its message. */
export function fsFailureWords(err: unknown): string {
  const { code, syscall } = (err ?? {}) as NodeJS.ErrnoException;
  return typeof code === 'string' ? fsReasonWords(code, syscall) : describeError(err);
}

/** "/x could not be opened: it is a folder, not a file" (no final period). */
export function fsErrorWords(err: FsError): string {
  const where = err.path ? `${err.path}${err.dest ? ` (to ${err.dest})` : ''}` : 'A file';
  return `${where} could not be ${fsActionWords(err.syscall)}: ${fsReasonWords(err.code, err.syscall)}`;
}

/**
 * `text` with every errno message in it (as `describeError` copies one into a sentence) said in
 * words; `name` may name the path better (a part of the store) or return undefined.
 */
export function withoutErrnoText(text: string, name: (err: FsError) => string | undefined = () => undefined): string {
  return text.replace(ERRNO_TEXT, (whole: string, code: string, syscall: string, path: string | undefined, dest: string | undefined) => {
    // Without a path the sentence around it says what was being done ("could not write the output: …");
    // only a real errno name is taken for one, so "E2E: the tests, write" stays as written.
    if (path === undefined) return Object.hasOwn(errnoNames, code) ? fsReasonWords(code, syscall) : whole;
    const err: FsError = { code, syscall, path, dest };
    return name(err) ?? fsErrorWords(err);
  });
}
