/**
 * A folder's state for round-trip checks ("the restored tree equals the worktree
 * byte for byte"): every entry with its type, permission bits and content hash
 * or link target. Shared by the git unit tests and the whole-system fault cases.
 */
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import * as path from 'node:path';
import { decodeName, fsPath } from '../../../../src/core/git/pathBytes';

export type State = Map<string, string>;

/**
 * Every entry below `root` (its own `.git` aside) as type, permission bits and content or link target.
 * Names are read as bytes (a name that is not UTF-8 is its own entry), keyed as pathBytes.ts keys them.
 */
export function treeState(root: string, skip: (rel: string) => boolean = () => false): State {
  const state: State = new Map();
  const visit = (rel: string) => {
    for (const raw of readdirSync(fsPath(path.join(root, rel)), { encoding: 'buffer' })) {
      const name = decodeName(raw);
      const childRel = rel ? `${rel}/${name}` : name;
      if ((rel === '' && name === '.git') || skip(childRel)) continue;
      const abs = fsPath(path.join(root, childRel));
      const st = lstatSync(abs);
      const mode = (st.mode & 0o7777).toString(8);
      if (st.isSymbolicLink()) state.set(childRel, `link ${readlinkSync(abs)}`);
      else if (st.isDirectory()) {
        state.set(childRel, `dir ${mode}`);
        visit(childRel);
      } else if (st.isFile()) state.set(childRel, `file ${mode} ${createHash('sha256').update(readFileSync(abs)).digest('hex')}`);
      else state.set(childRel, `${st.isFIFO() ? 'fifo' : 'special'} ${mode}`);
    }
  };
  visit('');
  return state;
}

export function assertSameState(actual: State, expected: State): void {
  const missing = [...expected.keys()].filter((k) => !actual.has(k));
  const extra = [...actual.keys()].filter((k) => !expected.has(k));
  const changed = [...expected.keys()].filter((k) => actual.has(k) && actual.get(k) !== expected.get(k));
  assert.deepEqual({ missing, extra, changed: changed.map((k) => `${k}: ${expected.get(k)} -> ${actual.get(k)}`) }, { missing: [], extra: [], changed: [] });
}
