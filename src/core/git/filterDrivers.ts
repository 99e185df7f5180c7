/**
 * Filter drivers turned off by name: git has no one setting that turns every filter off, and an
 * empty command is no filter to it. The names come from the config keys that define drivers, read
 * by `filtersOff` (filteredPaths.ts) or with the capture's other settings (conversions.ts).
 */

/** The config keys that make a filter driver (a regexp for `git config --get-regexp`). */
export const FILTER_KEYS = '^filter\\..+\\.(clean|process|smudge|required)$';

/** `-c` settings that turn off, both sides, each driver config `keys` (`filter.<driver>.<what>`) name. */
export function filtersOffArgs(keys: readonly string[]): string[] {
  const drivers = new Set(keys.map((k) => /^filter\.(.+)\.[a-z]+$/.exec(k)?.[1]).filter((d): d is string => d !== undefined));
  return [...drivers].flatMap((d) => ['-c', `filter.${d}.required=false`, '-c', `filter.${d}.clean=`, '-c', `filter.${d}.smudge=`, '-c', `filter.${d}.process=`]);
}
