/**
 * Review comments on an agent's changes, through VS Code's comments API: one
 * comment controller whose commenting ranges cover the agent's side of its
 * diffs (its worktree's files — the right side of a file child's diff and of
 * Open Changes' multi-diff; the base side is read-only history). A comment
 * is written to the job's review.json (core) before it is shown, so what the
 * person sees is what is kept; threads are rebuilt from that file when the
 * agents change, and sent comments are marked "sent".
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { KeyedSequencer } from '../../core/common/keyedSequencer';
import { Disposable } from '../../core/common/lifecycle';
import { canSendReview, hasLiveWorktree } from '../../core/operations/rules';
import { newCommentId, readReview, updateReview, type ReviewComment, type ReviewFile } from '../../core/store/reviewFile';
import type { JobStore } from '../../core/store';
import type { JobRecord } from '../../core/store/schema';
import type { AgentsModel } from '../model/agentsModel';

export const REVIEW_CONTROLLER_ID = 'paddock.review';

/** A comment shown in a thread, carrying its id in review.json. */
export class ReviewNote implements vscode.Comment {
  body: string | vscode.MarkdownString;
  mode = vscode.CommentMode.Preview;
  author: vscode.CommentAuthorInformation = { name: vscode.l10n.t('You') };
  label: string | undefined;
  contextValue: string;
  timestamp: Date;

  constructor(
    readonly saved: ReviewComment,
    readonly jobId: string,
  ) {
    this.body = new vscode.MarkdownString().appendText(saved.body);
    this.label = saved.sentAt ? vscode.l10n.t('sent') : vscode.l10n.t('not sent');
    this.contextValue = saved.sentAt ? 'reviewComment:sent' : 'reviewComment:unsent';
    this.timestamp = new Date(saved.createdAt);
  }
}

export class ReviewComments extends Disposable {
  readonly controller: vscode.CommentController;
  /** Threads shown per agent, keyed by "path\0line". */
  private readonly threads = new Map<string, Map<string, vscode.CommentThread>>();
  /** The review file content each agent's threads were built from (unchanged: nothing rebuilt). */
  private readonly shown = new Map<string, string>();
  /**
   * Each agent's reads and writes of its review, one at a time in the order begun: a re-read
   * begun before an add and ending after it would otherwise show the review without the new
   * comment, disposing the thread the person just typed into.
   */
  private readonly inOrder = new KeyedSequencer();
  /** The sentence each agent's unreadable review was last said with (said again only when it changes). */
  private readonly problems = new Map<string, string>();

  constructor(
    private readonly store: JobStore,
    private readonly model: AgentsModel,
    private readonly log: (message: string) => void,
    private readonly warn: (message: string) => void = (m) => void vscode.window.showWarningMessage(m),
  ) {
    super();
    this.controller = this._register(vscode.comments.createCommentController(REVIEW_CONTROLLER_ID, vscode.l10n.t('Paddock Review')));
    this.controller.options = { prompt: vscode.l10n.t('Comment for the agent'), placeHolder: vscode.l10n.t('What should the agent change here?') };
    this.controller.commentingRangeProvider = {
      provideCommentingRanges: (document) => {
        if (!this.agentOf(document.uri)) return [];
        return [new vscode.Range(0, 0, Math.max(0, document.lineCount - 1), 0)];
      },
    };
    this._register(model.onDidChange((change) => void this.reloadAll(change.structural ? undefined : change.ids)));
    this._register({ dispose: () => this.clearAll() });
  }

  /** The live agent whose worktree holds this file (the agent's side of a diff). */
  agentOf(uri: vscode.Uri): JobRecord | undefined {
    if (uri.scheme !== 'file') return undefined;
    const file = uri.fsPath;
    return this.model.visibleAgents().find((job) => hasLiveWorktree(job) && isInside(job.worktree!, file));
  }

  /** Saves a comment (or a reply) for the thread's line and shows it. */
  async add(thread: vscode.CommentThread, text: string): Promise<ReviewComment> {
    const job = this.agentOf(thread.uri);
    if (!job) throw new Error(vscode.l10n.t('This file is not in a Paddock agent\'s worktree.'));
    const body = text.trim();
    if (!body) throw new Error(vscode.l10n.t('The comment is empty.'));
    const saved: ReviewComment = {
      id: newCommentId(),
      path: path.relative(job.worktree!, thread.uri.fsPath).split(path.sep).join('/'),
      line: (thread.range?.start.line ?? 0) + 1,
      body,
      createdAt: new Date().toISOString(),
      sentAt: null,
      sentToGeneration: null,
    };
    return this.inOrder.run(job.id, async () => {
      const review = await updateReview(this.store, job.id, (r) => ({ ...r, comments: [...r.comments, saved] }));
      if (!this.isLive(job.id)) {
        // Gone or cleaned while the comment was written (it is kept in review.json): its threads were cleared and stay so.
        thread.dispose();
        this.log(`review of ${job.id}: the comment on ${saved.path}:${saved.line} was saved as the agent left the list; it is kept in its review.json`);
        return saved;
      }
      // The thread the person typed into becomes the one kept for this line.
      this.adopt(job, saved.path, saved.line, thread);
      this.show(job, review);
      return saved;
    });
  }

  /** Removes one unsent comment (a sent one stays: it is what the agent was told). */
  async remove(note: ReviewNote): Promise<void> {
    const job = this.model.get(note.jobId);
    if (!job) return;
    await this.inOrder.run(job.id, async () => {
      const review = await updateReview(this.store, job.id, (r) => ({ ...r, comments: r.comments.filter((c) => c.id !== note.saved.id || c.sentAt !== null) }));
      this.showIfLive(job, review);
    });
  }

  /** Re-reads one agent's review (after a send marked comments). */
  reload(job: JobRecord): Promise<void> {
    return this.inOrder.run(job.id, async () => {
      try {
        const review = await readReview(this.store, job.id);
        this.problems.delete(job.id);
        this.showIfLive(job, review);
      } catch (err) {
        this.unreadable(job, (err as Error).message);
      }
    });
  }

  /**
   * A review.json that cannot be read (hand-edited, damaged) was said only in the output channel,
   * while the threads last read stayed on the files as if they were what is kept (bug 181). They
   * are taken down (the file is left as it is: nothing of it is lost) and the person is told in one
   * sentence, once per problem, not at every re-read.
   */
  private unreadable(job: JobRecord, message: string): void {
    this.log(`review of ${job.id}: ${message}`);
    this.clear(job.id);
    if (this.problems.get(job.id) === message || !this.isLive(job.id)) return;
    this.problems.set(job.id, message);
    this.warn(message);
  }

  /** What reading the agent's review last failed with; undefined when it was read. */
  problemOf(jobId: string): string | undefined {
    return this.problems.get(jobId);
  }

  /**
   * Shows what a read or write of the review found, unless the agent was cleaned or left the list
   * meanwhile: its threads were cleared then (reloadAll), and a write that ended after that must
   * not bring them back (bug 69).
   */
  private showIfLive(job: JobRecord, review: ReviewFile): void {
    if (this.isLive(job.id)) this.show(job, review);
  }

  private isLive(id: string): boolean {
    return this.model.visibleAgents().some((job) => job.id === id && hasLiveWorktree(job));
  }

  /** The thread kept for an agent's file and line (what a person sees there), if any. */
  threadAt(jobId: string, rel: string, line: number): vscode.CommentThread | undefined {
    return this.threads.get(jobId)?.get(`${rel}\0${line}`);
  }

  /** Unsent comments of an agent, as kept (for the send command's confirmation and pickers). */
  async unsent(jobId: string): Promise<ReviewComment[]> {
    return (await readReview(this.store, jobId)).comments.filter((c) => c.sentAt === null);
  }

  /** Rebuilds the threads of the given agents (all when undefined); agents gone or cleaned lose theirs. */
  private async reloadAll(changed: readonly string[] | undefined): Promise<void> {
    const live = this.model.visibleAgents().filter(hasLiveWorktree);
    const ids = new Set(live.map((j) => j.id));
    for (const id of [...this.threads.keys()]) if (!ids.has(id)) this.clear(id);
    for (const job of live) if (!changed || changed.includes(job.id)) await this.reload(job);
  }

  private adopt(job: JobRecord, rel: string, line: number, thread: vscode.CommentThread): void {
    let threads = this.threads.get(job.id);
    if (!threads) this.threads.set(job.id, (threads = new Map()));
    const key = `${rel}\0${line}`;
    const known = threads.get(key);
    if (known && known !== thread) known.dispose();
    threads.set(key, thread);
    // The adopted thread has none of the comments shown so far: the next show rebuilds, even from the same review.
    this.shown.delete(job.id);
  }

  /** Makes the threads match the review: one thread per commented line, its comments in order. */
  private show(job: JobRecord, review: ReviewFile): void {
    // Whether the rule lets the review be sent goes into each thread's contextValue: the threads' Send
    // Review buttons showed for an agent the rule refuses (one rule: rules.ts, as the row and palette).
    // It changes with the agent, not the review, so it is part of what was shown. (A thread the person
    // has just opened has no contextValue yet: the buttons show there, and a refused send says why.)
    const sendable = canSendReview(job);
    const text = `${sendable}\0${JSON.stringify(review)}`;
    let threads = this.threads.get(job.id);
    if (this.shown.get(job.id) === text && threads) return;
    this.shown.set(job.id, text);
    if (!threads) this.threads.set(job.id, (threads = new Map()));
    const byLine = new Map<string, ReviewComment[]>();
    for (const c of review.comments) {
      const key = `${c.path}\0${c.line}`;
      byLine.set(key, [...(byLine.get(key) ?? []), c]);
    }
    for (const [key, thread] of threads) {
      if (!byLine.has(key)) {
        thread.dispose();
        threads.delete(key);
      }
    }
    for (const [key, comments] of byLine) {
      let thread = threads.get(key);
      const { path: rel, line } = comments[0];
      const allSent = comments.every((c) => c.sentAt !== null);
      if (!thread) {
        thread = this.controller.createCommentThread(vscode.Uri.file(path.join(job.worktree!, rel)), new vscode.Range(line - 1, 0, line - 1, 0), []);
        // Reopened later, what was sent stays folded; a thread the person is looking at keeps its state.
        thread.collapsibleState = allSent ? vscode.CommentThreadCollapsibleState.Collapsed : vscode.CommentThreadCollapsibleState.Expanded;
        threads.set(key, thread);
      }
      thread.comments = comments.map((c) => new ReviewNote(c, job.id));
      thread.label = allSent ? vscode.l10n.t('Sent to the agent') : vscode.l10n.t('Review for the agent');
      thread.contextValue = `reviewThread:${allSent ? 'sent' : 'unsent'}${sendable ? ':send' : ''}`;
      thread.canReply = true;
    }
  }

  private clear(id: string): void {
    for (const thread of this.threads.get(id)?.values() ?? []) thread.dispose();
    this.threads.delete(id);
    this.shown.delete(id);
  }

  private clearAll(): void {
    for (const id of [...this.threads.keys()]) this.clear(id);
  }
}

function isInside(folder: string, file: string): boolean {
  const rel = path.relative(folder, file);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}
