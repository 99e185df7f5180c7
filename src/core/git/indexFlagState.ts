/**
 * The agent's index holds state no tree does: intent-to-add entries (`git add -N`,
 * which `write-tree` leaves out, so the path read untracked), and the
 * assume-unchanged and skip-worktree flags (skip-worktree on a file that is not on
 * disk is a sparse checkout's: the file was left out on purpose). The capture
 * records which paths carry each, read from the index file itself with no
 * process (indexFlags.ts; git is asked only when that reader does not know the
 * file for sure), and restore puts them back once the files and the index are.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { IndexFlagRecord } from './evidenceManifest';
import { indexFlagListsOf, type IndexFlagLists } from './indexFlags';
import { setIndexFlags } from './flaggedFiles';
import { encodeName, fsPath } from './pathBytes';
import { firstLine, NO_HOOKS_ENV, runGit } from './runGit';
import { readGitBytes } from './gitFileText';

/** In-memory flags git's `ls-files --debug` prints (cache.h): CE_VALID, CE_INTENT_TO_ADD, CE_SKIP_WORKTREE. */
const CE_VALID = 0x8000;
const CE_INTENT_TO_ADD = 1 << 29;
const CE_SKIP_WORKTREE = 1 << 30;

/**
 * git's own reading of the index file (a split or sparse index): `ls-files --debug -z` gives each path
 * NUL-ended, then five lines of stat data, the last ending with the entry's flags in hex.
 */
async function flagListsFromGit(worktree: string, indexFile: string): Promise<IndexFlagLists | null> {
  const res = await runGit(['ls-files', '--debug', '-z'], { cwd: worktree, env: { GIT_INDEX_FILE: path.resolve(indexFile), GIT_OPTIONAL_LOCKS: '0' }, allowFailure: true, names: true });
  if (res.code !== 0) return null;
  const lists: IndexFlagLists = { intentToAdd: [], assumeUnchanged: [], skipWorktree: [] };
  const out = res.stdout;
  let at = 0;
  while (at < out.length) {
    const nul = out.indexOf('\0', at);
    if (nul < 0) break;
    const name = out.slice(at, nul);
    let end = nul;
    for (let line = 0; line < 5 && end >= 0; line++) end = out.indexOf('\n', end + 1);
    if (end < 0) return null;
    const flags = /flags: ([0-9a-f]+)$/.exec(out.slice(nul + 1, end))?.[1];
    if (flags === undefined) return null;
    const value = parseInt(flags, 16);
    if (value & CE_INTENT_TO_ADD) lists.intentToAdd.push(name);
    if (value & CE_VALID) lists.assumeUnchanged.push(name);
    if (value & CE_SKIP_WORKTREE) lists.skipWorktree.push(name);
    at = end + 1;
  }
  return lists;
}

/**
 * What the agent's index flags, for the inventory; null when nothing is flagged or the index cannot
 * be read (the capture starts from HEAD then: there is no state to keep). `onDisk` says whether the
 * walk found something at a path: a skip-worktree file that was not there stays out of the restored
 * checkout.
 */
export async function captureIndexFlags(worktree: string, indexFile: string, onDisk: (rel: string) => boolean): Promise<IndexFlagRecord | null> {
  const buf = await readGitBytes(indexFile).catch(() => null);
  if (buf === null) return null;
  const lists = indexFlagListsOf(buf) ?? (await flagListsFromGit(worktree, indexFile));
  if (lists === null) return null;
  const notCheckedOut = lists.skipWorktree.filter((p) => !onDisk(p));
  const record: IndexFlagRecord = {
    ...(lists.intentToAdd.length > 0 ? { intentToAdd: lists.intentToAdd } : {}),
    ...(lists.assumeUnchanged.length > 0 ? { assumeUnchanged: lists.assumeUnchanged } : {}),
    ...(lists.skipWorktree.length > 0 ? { skipWorktree: lists.skipWorktree } : {}),
    ...(notCheckedOut.length > 0 ? { notCheckedOut } : {}),
  };
  return Object.keys(record).length > 0 ? record : null;
}

/**
 * Before the checkout: the files the agent's sparse checkout left out are flagged so `checkout-index`
 * leaves them out too. Returns, in a sentence, when git would not (a path the snapshot lacks): they are
 * checked out then.
 */
export async function keepOutOfCheckout(target: string, record: IndexFlagRecord | undefined): Promise<string[]> {
  const paths = record?.notCheckedOut ?? [];
  if (paths.length === 0) return [];
  // Restore's own writes of the index run no hook of the person's (restore.ts).
  return setIndexFlags(target, { skipWorktree: paths }, NO_HOOKS_ENV).then(
    () => [],
    (err: Error) => [`${paths.length} file(s) the sparse checkout had left out are on disk again (${firstLine(err.message)})`],
  );
}

/**
 * Once the files and the agent's index are back: its intent-to-add entries and flags again. Returns
 * what could not be put back, in sentences (a flag git refuses, an intent-to-add whose file the
 * agent had deleted: there is nothing to add).
 */
export async function restoreIndexFlags(target: string, record: IndexFlagRecord | undefined): Promise<string[]> {
  if (!record) return [];
  const problems: string[] = [];
  const intents = record.intentToAdd ?? [];
  const present: string[] = [];
  for (const p of intents) if (await fs.lstat(fsPath(path.join(target, p))).catch(() => null)) present.push(p);
  const missing = intents.length - present.length;
  if (missing > 0) problems.push(`${missing} path(s) added with git add -N had no file at cleanup and are not in the index again (first: ${intents.find((p) => !present.includes(p))})`);
  if (present.length > 0) {
    // -f: an ignored file can have been added that way; literal pathspecs, on stdin (names are bytes).
    const pathspecs = encodeName(present.map((p) => `:(top,literal)${p}\0`).join(''));
    const res = await runGit(['add', '--intent-to-add', '--force', '--pathspec-from-file=-', '--pathspec-file-nul'], { cwd: target, env: NO_HOOKS_ENV, input: pathspecs, allowFailure: true });
    if (res.code !== 0) problems.push(`the paths added with git add -N are untracked again (${firstLine(res.stderr) || `exit code ${res.code}`})`);
  }
  for (const [flag, paths] of [['skip-worktree', record.skipWorktree], ['assume-unchanged', record.assumeUnchanged]] as const) {
    if (!paths?.length) continue;
    const set = flag === 'skip-worktree' ? { skipWorktree: paths } : { assumeUnchanged: paths };
    await setIndexFlags(target, set, NO_HOOKS_ENV).catch((err: Error) => problems.push(`the ${flag} flags of ${paths.length} path(s) are not set again (${firstLine(err.message)})`));
  }
  return problems;
}
