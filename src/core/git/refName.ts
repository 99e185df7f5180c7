/** Judging a ref name by git's rules without running git, where that can be certain. */

/**
 * True when `ref` is certainly a valid full ref name by git's rules
 * (git-check-ref-format), judged without running git: only plain ASCII names
 * ([A-Za-z0-9._/-]) that break none of the rules. Anything else is not
 * "invalid" but "ask git". Paddock's own names (paddock/<id>,
 * refs/paddock/snapshots/<id>) always pass, which saves a git process per check.
 */
export function isPlainValidRef(ref: string): boolean {
  if (!/^[A-Za-z0-9._/-]+$/.test(ref) || ref.startsWith('-')) return false;
  const parts = ref.split('/');
  if (parts.length < 2) return false;
  for (const part of parts) {
    if (part === '' || part.startsWith('.') || part.endsWith('.lock')) return false;
  }
  return !ref.includes('..') && !ref.endsWith('.');
}
