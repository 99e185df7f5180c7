/**
 * The removal of an operation's scratch folder (a temporary index, a batch of blobs) and temporary
 * files as it ends, from its `finally`. It never throws (bug 188): thrown there, its error replaced the
 * operation's own (a capture that failed said "ENOTEMPTY: rmdir" of its scratch folder, a step still
 * writing into it as it went), and an operation that worked would fail for a leftover. What is left
 * is a temporary file or folder, named as one, holding nothing not kept elsewhere; named through `log`
 * where the caller has one (bug 194: an EACCES or a full disk no retry fixes left `paddock-*` folders
 * piling up in the temporary folder with no trace of why).
 */
import { promises as fs } from 'node:fs';
import { describeError } from '../common/errors';

/** A git process killed at its timeout may still be exiting (runGit settles at the SIGKILL): tried again a few times. */
const RM_RETRIES = 3;

/** Where a scratch folder's removal says what it left behind (an operation's log). */
export type ScratchLog = (message: string) => void;

/** Removes `folder` and the files `temps` once the steps `running` (which may write there) have settled. */
export async function removeScratch(
  folder: string,
  leftovers: { running?: readonly Promise<unknown>[]; temps?: readonly string[]; log?: ScratchLog } = {},
): Promise<void> {
  await Promise.allSettled(leftovers.running ?? []);
  const leftBehind = (what: string) => (err: unknown) => leftovers.log?.(`temporary ${what} left behind: ${describeError(err)}`);
  for (const t of leftovers.temps ?? []) await fs.rm(t, { force: true }).catch(leftBehind(`file ${t}`));
  await fs.rm(folder, { recursive: true, force: true, maxRetries: RM_RETRIES }).catch(leftBehind(`folder ${folder}`));
}
