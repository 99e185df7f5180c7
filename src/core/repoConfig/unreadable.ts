/**
 * One rule for a file this user may not read (root's, mode 600, as a container leaves it), named
 * or reached through a copied link: it is left out with why, never failing the start. Named files
 * and links once had different answers: a link to such a file was skipped while the file named
 * itself failed the whole start (the third review of bug 161).
 */

/** A system error code (EACCES, ENOENT, ELOOP); Node's own `ERR_*` codes, faults of ours, have an underscore. */
export function isSystemCode(code: unknown): code is string {
  return typeof code === 'string' && /^E[A-Z0-9]+$/.test(code);
}

/** Why a target is left out when looking at it failed with a system `code`. */
export function unreadableWhy(code: string): string {
  return `its target cannot be read: ${code}`;
}

/** The reason when opening a file to read it was refused (EACCES, EPERM: permissions, a security module); null for any other error. */
export function refusedRead(err: unknown): string | null {
  const code = (err as NodeJS.ErrnoException)?.code;
  return code === 'EACCES' || code === 'EPERM' ? unreadableWhy(code) : null;
}
