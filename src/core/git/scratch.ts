/**
 * The removal of an operation's scratch folder (a temporary index, a batch of blobs) and temporary
 * files as it ends, from its `finally`. It never throws (bug 188): thrown there, its error replaced the
 * operation's own (a capture that failed said "ENOTEMPTY: rmdir" of its scratch folder, a step still
 * writing into it as it went), and an operation that worked would fail for a leftover. What is left
 * is a temporary file or folder, named as one, holding nothing not kept elsewhere.
 */
import { promises as fs } from 'node:fs';

/** A git process killed at its timeout may still be exiting (runGit settles at the SIGKILL): tried again a few times. */
const RM_RETRIES = 3;

/** Removes `folder` and the files `temps` once the steps `running` (which may write there) have settled. */
export async function removeScratch(folder: string, leftovers: { running?: readonly Promise<unknown>[]; temps?: readonly string[] } = {}): Promise<void> {
  await Promise.allSettled(leftovers.running ?? []);
  for (const t of leftovers.temps ?? []) await fs.rm(t, { force: true }).catch(() => undefined);
  await fs.rm(folder, { recursive: true, force: true, maxRetries: RM_RETRIES }).catch(() => undefined);
}
