/**
 * A person's review of an agent's changes: comments on lines of the agent's
 * files, kept in the job folder (`jobs/<id>/review.json`) so they survive a
 * reload and are seen by every window. Written durably under the file's own
 * lock (a read-modify-write: two windows adding comments at once both land);
 * validated with zod when read — a file that does not validate is reported,
 * never silently replaced.
 */
import { randomBytes } from '../common/lazyCrypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as z from '../common/zod';
import { failure } from '../common/errors';
import { fsFailureWords } from '../common/fsErrors';
import { sweepTempFiles, writeFileDurable } from './durable';
import { REVIEW_FILE } from './paths';
import { DEFAULT_LOCK_OPTIONS, withLock } from './locks';
import { describeIssues } from './records';
import { isNotRegularFile, notRegularReason, readRegularText } from './regularFile';

export { REVIEW_FILE };
export const MAX_REVIEW_COMMENTS = 500;
export const MAX_COMMENT_CHARS = 4000;

export const ReviewCommentSchema = z.object({
  id: z.string().check(z.regex(/^[0-9a-f]{8,32}$/)),
  /** Relative to the agent's worktree, with forward slashes: never absolute, never climbing out with `..` (a thread is shown on that file). */
  path: z.string().check(z.minLength(1), z.maxLength(4096), z.regex(/^(?!\/)(?!(?:.*\/)?\.\.(?:\/|$))/)),
  /** 1-based line in the agent's version of the file. */
  line: z.number().check(z.int(), z.gte(1)),
  body: z.string().check(z.minLength(1), z.maxLength(MAX_COMMENT_CHARS)),
  createdAt: z.string().check(z.minLength(1), z.maxLength(64)),
  /** When it went to the agent (typed in, or as a retry's prompt); null: not sent yet. */
  sentAt: z.nullable(z.string().check(z.minLength(1), z.maxLength(64))),
  /** The agent's generation it was sent to. */
  sentToGeneration: z.nullable(z.number().check(z.int(), z.gte(1))),
});
export type ReviewComment = z.infer<typeof ReviewCommentSchema>;

export const ReviewFileSchema = z.object({
  version: z.literal(1),
  comments: z.array(ReviewCommentSchema).check(z.maxLength(MAX_REVIEW_COMMENTS)),
});
export type ReviewFile = z.infer<typeof ReviewFileSchema>;

/** What the store gives the review file: the job's folder (and so the id's validation). */
export interface ReviewHome {
  jobDir(id: string): string;
}

function fileOf(store: ReviewHome, id: string): string {
  return path.join(store.jobDir(id), REVIEW_FILE);
}

/** The agent's review; an empty one when none was written yet. */
export async function readReview(store: ReviewHome, id: string): Promise<ReviewFile> {
  const file = fileOf(store, id);
  let text: string;
  try {
    text = (await readRegularText(file)) ?? '';
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, comments: [] };
    const why = isNotRegularFile(err) ? notRegularReason(err) : fsFailureWords(err);
    throw failure(`Cannot read the review of agent ${id} (${file}): ${why}; it was left as it is.`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw failure(`The review of agent ${id} (${file}) is not valid JSON; it was left as it is.`);
  }
  const parsed = ReviewFileSchema.safeParse(data);
  if (!parsed.success) throw failure(`The review of agent ${id} (${file}) is not valid: ${describeIssues(parsed.error.issues)}; it was left as it is.`);
  return parsed.data;
}

/** Changes the review under its lock and writes it durably; returns what was written. */
export async function updateReview(store: ReviewHome, id: string, change: (review: ReviewFile) => ReviewFile): Promise<ReviewFile> {
  const file = fileOf(store, id);
  await fs.access(store.jobDir(id)).catch(() => {
    throw failure(`No agent ${id} exists.`, 'NOT_FOUND');
  });
  return withLock(`${file}.lock`, `the review of agent ${id}`, DEFAULT_LOCK_OPTIONS, async (guard) => {
    // What a crashed review write left goes under this lock (the record's writers leave it alone).
    sweepTempFiles(file);
    const next = ReviewFileSchema.parse(change(await readReview(store, id)));
    guard.assertHeld();
    try {
      await writeFileDurable(file, `${JSON.stringify(next, null, 2)}\n`);
    } catch (err) {
      throw failure(`Could not save the review of agent ${id} (${file}): ${fsFailureWords(err)}; the review is as it was.`);
    }
    return next;
  });
}

export function newCommentId(): string {
  return randomBytes(8).toString('hex');
}
