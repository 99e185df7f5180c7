/**
 * What `git config -z --get-regexp` prints, read once for every caller: each entry is "key\nvalue\0",
 * or "key\0" for a key written without `=` (git reads that as true). Values keep every byte.
 */
export interface ConfigEntry {
  key: string;
  /** null: the key was written without a value. */
  value: string | null;
}

export function configEntries(stdout: string): ConfigEntry[] {
  const out: ConfigEntry[] = [];
  for (const item of stdout.split('\0')) {
    if (item === '') continue;
    const nl = item.indexOf('\n');
    out.push(nl < 0 ? { key: item, value: null } : { key: item.slice(0, nl), value: item.slice(nl + 1) });
  }
  return out;
}
