/** A fake GitHub CLI on PATH for the pull-request tests: it records its arguments. */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

/** A fake `gh` that appends its argv (one line, NUL-separated) to `log`, says it is logged in, and prints a PR URL. */
export function fakeGh(dir: string, log: string, opts: { failCreate?: boolean; loggedOut?: boolean; existing?: boolean } = {}): string {
  const bin = path.join(dir, 'gh');
  writeFileSync(
    bin,
    `#!/bin/sh
printf '%s\\0' "$@" >> '${log}'; printf '\\n' >> '${log}'
if [ "$1" = auth ]; then ${opts.loggedOut ? 'echo "not logged in" >&2; exit 1' : 'exit 0'}; fi
if [ "$1" = pr ]; then ${opts.failCreate ? 'echo "GraphQL: base branch missing" >&2; exit 1' : opts.existing ? `printf 'a pull request for branch "%s" into branch "%s" already exists:\\nhttps://github.com/o/r/pull/7\\n' "$4" "$6" >&2; exit 1` : 'echo "https://github.com/o/r/pull/12"; exit 0'}; fi
exit 2
`,
  );
  chmodSync(bin, 0o755);
  return dir;
}

export function ghCalls(log: string): string[][] {
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split('\0').filter((w, i, all) => i < all.length - 1 || w !== ''));
}
