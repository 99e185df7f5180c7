/**
 * Send Review to Agent: a person's unsent review comments (file and line each)
 * become one prompt — typed into a running or waiting agent, or given to a
 * retry of an ended one — and are then marked as sent in `review.json`. One
 * door for the window's command and any other caller; the rules are the
 * send and retry rules (`rules.ts`).
 */
import { usageError } from '../common/errors';
import { printable } from '../common/printable';
import { canSend, reviewBlocker } from './rules';
import type { JobRecord } from '../store/schema';
import { readReview, updateReview, type ReviewComment, type ReviewHome } from '../store/reviewFile';
import { MAX_INPUT_CHARS } from '../protocol/messages';
import { MAX_PROMPT_CHARS } from '../profiles/prompt';
import { goneFiles } from './reviewGoneFiles';

export interface ReviewSender {
  readonly store: ReviewHome & { read(id: string): Promise<JobRecord> };
  send(id: string, text: string): Promise<void>;
  retry(id: string, opts: { prompt: string; onNewConversation: () => void }): Promise<JobRecord>;
  /** Held from reading the unsent comments to marking them sent: one send of an agent's review at a time. */
  lock(id: string): Promise<{ release(): Promise<void> }>;
}

export interface ReviewSent {
  /** Ids of the comments sent. */
  readonly comments: string[];
  /** Typed into the running agent, or the prompt of a retry. */
  readonly how: 'typed' | 'retry';
  readonly prompt: string;
  readonly generation: number;
  /**
   * The retry began a new conversation with the review as its prompt: the agent had saved none to
   * continue (an agent stopped at its first screen or unable to reach its API: Claude Code's
   * `--continue` is then left out (bug 58), Codex's `resume --last` starts afresh by itself).
   * Nothing of a conversation is lost, but the person is told, not left to believe it went on.
   */
  readonly newConversation: boolean;
}

/** One line of printable text (agents submit on Enter): every comment as "path:line: text", in file and line order. */
export function reviewPrompt(comments: readonly ReviewComment[], gone: ReadonlySet<string> = new Set()): string {
  const ordered = [...comments].sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line);
  // Typed into a terminal: a newline in a file name would submit half the review, a control
  // character in a comment would act (Ctrl-C, an escape sequence); they are spelled out instead.
  const items = ordered.map((c, i) => {
    const where = gone.has(c.path) ? `${printable(c.path)}:${c.line} (a file you have since deleted or renamed)` : `${printable(c.path)}:${c.line}`;
    return `(${i + 1}) ${where}: ${printable(c.body.replace(/\s+/g, ' ').trim())}`;
  });
  return `Please address these review comments on your changes: ${items.join(' ')}`;
}

export async function sendReview(sender: ReviewSender, id: string, now: () => Date = () => new Date()): Promise<ReviewSent> {
  sender.store.jobDir(id); // a bad id is refused before any lock
  const held = await sender.lock(id);
  try {
    return await sendUnsent(sender, id, now);
  } finally {
    await held.release();
  }
}

async function sendUnsent(sender: ReviewSender, id: string, now: () => Date): Promise<ReviewSent> {
  const review = await readReview(sender.store, id);
  const unsent = review.comments.filter((c) => c.sentAt === null);
  if (unsent.length === 0) throw usageError(`Agent ${id}'s review has no unsent comments.`);
  const job = await sender.store.read(id);
  const blocker = reviewBlocker(job);
  if (blocker) throw usageError(blocker);
  const prompt = reviewPrompt(unsent, job.worktree === null ? new Set() : await goneFiles(job.worktree, unsent.map((c) => c.path)));
  let how: ReviewSent['how'];
  let generation: number;
  let newConversation = false;
  if (canSend(job)) {
    if (prompt.length > MAX_INPUT_CHARS) throw usageError(`The review is ${prompt.length} characters long; at most ${MAX_INPUT_CHARS} can be typed into an agent at once. Send fewer comments.`);
    await sender.send(id, prompt);
    how = 'typed';
    generation = job.lifecycle.generation;
  } else {
    if (prompt.length > MAX_PROMPT_CHARS) throw usageError(`The review is ${prompt.length} characters long; a retry's prompt can be at most ${MAX_PROMPT_CHARS}. Send fewer comments.`);
    const next = await sender.retry(id, { prompt, onNewConversation: () => (newConversation = true) });
    how = 'retry';
    generation = next.lifecycle.generation;
  }
  const sentIds = new Set(unsent.map((c) => c.id));
  const at = now().toISOString();
  await updateReview(sender.store, id, (r) => ({
    ...r,
    comments: r.comments.map((c) => (sentIds.has(c.id) && c.sentAt === null ? { ...c, sentAt: at, sentToGeneration: generation } : c)),
  }));
  return { comments: [...sentIds], how, prompt, generation, newConversation };
}
