/**
 * Where an agent's work stands (the row's figures), the showCleanedFor filter
 * and its toggle, and a review comment sent to a running agent — in the real
 * extension host, with real agents, git and the comments API.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { JobRecord } from '../../src/core/store/schema';
import type { PaddockApi } from '../../src/extension';
import { readReview, REVIEW_FILE } from '../../src/core/store/reviewFile';
import { DEFAULT_LOCK_OPTIONS, withLock } from '../../src/core/store/locks';
import { isCommandFailure } from '../../src/ui/commands/command';
import { ReviewComments } from '../../src/ui/review/reviewComments';
import { env, paddock, treeAgents, treeItemFor, waitFor, waitForState } from './helpers';

const GIT_ID = '-c user.name=Agent -c user.email=agent@example.invalid';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

async function start(options: { command: string[]; title: string; base?: string }): Promise<JobRecord> {
  const job = (await vscode.commands.executeCommand('paddock.startAgent', { repo: env('PADDOCK_HOST_TEST_WORKSPACE'), openTerminal: false, ...options })) as JobRecord;
  assert.ok(job?.id, 'the start command returns the new job');
  return job;
}

describe('where the work stands, cleaned agents, review', function () {
  this.timeout(180_000);
  let ext: PaddockApi;
  const repo = () => env('PADDOCK_HOST_TEST_WORKSPACE');

  before(async () => {
    ext = await paddock();
    await vscode.workspace.getConfiguration('paddock').update('stopGraceSeconds', 2, vscode.ConfigurationTarget.Global);
  });

  it('the row of an agent that committed says how far ahead and behind its base it is, and its diff size', async () => {
    // Its own base branch, so that moving it (for "behind") touches nothing else in the workspace.
    git(repo(), 'branch', '-f', 'standing-base', 'HEAD');
    const job = await start({
      title: 'Commit twice',
      base: 'standing-base',
      command: ['bash', '-c', `printf 'a\\nb\\n' > one.txt && git add -A && git ${GIT_ID} commit -qm one && printf 'c\\n' > two.txt && git add -A && git ${GIT_ID} commit -qm two && sleep 600`],
    });
    await waitForState(ext, job.id, ['running']);
    // The base moves on by one commit, without a checkout anywhere.
    const tip = git(repo(), 'rev-parse', 'standing-base');
    const moved = execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@t', 'commit-tree', `${tip}^{tree}`, '-p', tip, '-m', 'base moves on'], { cwd: repo(), encoding: 'utf8' }).trim();
    git(repo(), 'update-ref', 'refs/heads/standing-base', moved);
    const item = await waitFor('the figures in the row', async () => {
      const found = await treeItemFor(ext, job.id);
      return found && /2 commits ahead, 1 behind standing-base · 2 files \+3 −0/.test(String(found.item.description)) ? found.item : undefined;
    }, 60_000);
    assert.match(String(item.description), /^running · \d+s · 2 commits ahead, 1 behind standing-base · 2 files \+3 −0$/);
    assert.ok((item.tooltip as vscode.MarkdownString).value.includes('| Against base | 2 commit\\(s\\) ahead, 1 behind standing\\-base |'), 'the tooltip has the figures');
    // Uncommitted work shows once the worktree's index changes (a staged file), without any store change.
    execFileSync('bash', ['-c', 'echo x > three.txt && git add three.txt'], { cwd: job.worktree! });
    await waitFor('uncommitted changes in the row', async () => {
      const found = await treeItemFor(ext, job.id);
      return found && /· uncommitted changes$/.test(String(found.item.description));
    }, 30_000);
    await vscode.commands.executeCommand('paddock.stop', job.id, { confirmed: true });
  });

  it('hides a cleaned agent after paddock.showCleanedFor, and Show Cleaned Agents shows it again', async () => {
    const job = await start({ title: 'Cleaned long ago', command: ['true'] });
    await waitForState(ext, job.id, ['completed']);
    await vscode.commands.executeCommand('paddock.cleanUp', job.id, { confirmed: true });
    await waitFor('cleanup to complete', async () => (await ext.store.read(job.id)).cleanup?.phase === 'complete', 60_000);
    await ext.agents.refresh(job.id);
    const shown = async () => (await treeAgents(ext)).some((n) => n.job.id === job.id);
    assert.equal(await shown(), true, 'cleaned just now: shown for the default day');
    const config = vscode.workspace.getConfiguration('paddock');
    await config.update('showCleanedFor', 0, vscode.ConfigurationTarget.Global);
    try {
      await waitFor('the cleaned agent to leave the tree', async () => !(await shown()), 10_000);
      await vscode.commands.executeCommand('paddock.showCleanedAgents');
      assert.equal(ext.tree.showingAllCleaned, true);
      assert.equal(await shown(), true, 'the toggle shows every cleaned agent');
      await vscode.commands.executeCommand('paddock.hideCleanedAgents');
      assert.equal(await shown(), false);
    } finally {
      await config.update('showCleanedFor', undefined, vscode.ConfigurationTarget.Global);
    }
    assert.equal(await shown(), true, 'back to a day');
  });

  it('a review comment on the agent\'s file is typed into the running agent with its file and line, then marked sent', async () => {
    const job = await start({ title: 'Take a review', command: ['bash', '-c', 'cat > got.txt'] });
    await waitForState(ext, job.id, ['running']);
    const file = vscode.Uri.file(path.join(job.worktree!, 'src', 'hello.js'));
    const document = await vscode.workspace.openTextDocument(file);
    // The controller offers comments on the agent's side of the diff, not on other files.
    const ranges = await ext.review.controller.commentingRangeProvider!.provideCommentingRanges(document, new vscode.CancellationTokenSource().token);
    assert.ok(Array.isArray(ranges) && ranges.length === 1, 'the agent\'s file can be commented');
    const outside = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(repo(), 'README.md')));
    assert.deepEqual(await ext.review.controller.commentingRangeProvider!.provideCommentingRanges(outside, new vscode.CancellationTokenSource().token), []);

    // As the comment box does: a thread on line 1, and the reply button's command with the typed text.
    const thread = ext.review.controller.createCommentThread(file, new vscode.Range(0, 0, 0, 0), []);
    await vscode.commands.executeCommand('paddock.addReviewComment', { thread, text: 'Say hello to the world instead' });
    assert.equal(thread.comments.length, 1);
    assert.equal(thread.comments[0].label, 'not sent');
    // A second comment, deleted before sending (its Delete action): gone from the thread and review.json.
    await vscode.commands.executeCommand('paddock.addReviewComment', { thread, text: 'Never mind this one' });
    await waitFor('the second comment in the thread', () => (thread.comments.length === 2 ? true : undefined), 10_000);
    await vscode.commands.executeCommand('paddock.deleteReviewComment', thread.comments[1]);
    await waitFor('the deleted comment to leave the thread', () => (thread.comments.length === 1 ? true : undefined), 10_000);
    // Re-reads of the review (as the agents' changes cause) keep coming while a comment is added on
    // another line: none may show a review older or newer than the add's own, over the thread typed into.
    // Writes of the agent's record keep coming too (the window's usage samples, the worker's): each
    // sweeps the job folder for temp files a crashed writer left, and may not take the review's own (bug 60).
    const typedInto = ext.review.controller.createCommentThread(file, new vscode.Range(1, 0, 1, 0), []);
    const rereads: Promise<void>[] = [];
    let adding = true;
    const storm = () => {
      if (!adding) return;
      rereads.push(ext.review.reload(job));
      setImmediate(storm);
    };
    let recordWrites = 0;
    const writeRecord = async (): Promise<void> => {
      while (adding) {
        await ext.store.update(job.id, () => undefined);
        recordWrites++;
      }
    };
    storm();
    const writers = [writeRecord(), writeRecord()];
    const added = await vscode.commands.executeCommand('paddock.addReviewComment', { thread: typedInto, text: 'Raced against re-reads' });
    adding = false;
    await Promise.all([...rereads, ...writers]);
    assert.ok(rereads.length > 1, 'the re-reads overlapped the add');
    assert.ok(recordWrites > 0, 'the record writes overlapped the add');
    assert.ok(!isCommandFailure(added), `the add was saved: ${JSON.stringify(added)}`);
    assert.equal(ext.review.threadAt(job.id, 'src/hello.js', 2), typedInto, 'the thread typed into is the one kept for its line');
    assert.deepEqual(typedInto.comments.map((c) => (c as { saved?: { body: string } }).saved?.body), ['Raced against re-reads'], 'the thread typed into shows its comment');
    // Its only comment deleted, the thread is disposed; review.json below no longer has it.
    await vscode.commands.executeCommand('paddock.deleteReviewComment', typedInto.comments[0]);

    const saved = await readReview(ext.store, job.id);
    assert.deepEqual(saved.comments.map((c) => [c.path, c.line, c.body, c.sentAt]), [['src/hello.js', 1, 'Say hello to the world instead', null]]);

    const result = (await vscode.commands.executeCommand('paddock.sendReview', thread)) as { how: string };
    assert.equal(result?.how, 'typed');
    const got = path.join(job.worktree!, 'got.txt');
    const typed = await waitFor('the review typed into the agent', () => {
      const text = readFileSync(got, 'utf8');
      return text.includes('src/hello.js:1: Say hello to the world instead') ? text : undefined;
    }, 20_000);
    assert.match(typed, /^Please address these review comments on your changes: \(1\) src\/hello\.js:1: Say hello to the world instead\n$/);
    const after = await readReview(ext.store, job.id);
    assert.ok(after.comments[0].sentAt, 'marked sent in review.json');
    await waitFor('the thread to say sent', () => thread.comments[0]?.label === 'sent', 10_000);
    // Review D2: the thread's Send Review buttons showed for an agent the rule refuses. The rule's
    // answer is in the thread's contextValue (the buttons' when clauses match it): a running agent
    // takes a review; once stopped, this one (a command of its own: no resume arguments) does not.
    assert.equal(thread.contextValue, 'reviewThread:sent:send');
    await vscode.commands.executeCommand('paddock.stop', job.id, { confirmed: true });
    await waitFor('the stopped agent\'s thread to offer no send', () => (thread.contextValue === 'reviewThread:sent' ? true : undefined), 20_000);
  });
  // Bug 181: a review.json that could not be read was said only in the output channel; the threads
  // last read stayed on the file as if they were what is kept.
  it('an unreadable review.json takes its threads down, says so in one sentence, and is left as it is', async () => {
    const job = await start({ title: 'Review damaged by hand', command: ['true'] });
    await waitForState(ext, job.id, ['completed']);
    await ext.agents.refresh(job.id);
    const file = vscode.Uri.file(path.join(job.worktree!, 'src', 'hello.js'));
    const thread = ext.review.controller.createCommentThread(file, new vscode.Range(0, 0, 0, 0), []);
    assert.ok(!isCommandFailure(await vscode.commands.executeCommand('paddock.addReviewComment', { thread, text: 'Kept through the damage' })));
    assert.ok(ext.review.threadAt(job.id, 'src/hello.js', 1), 'the comment is shown');
    const reviewFile = path.join(ext.store.jobDir(job.id), REVIEW_FILE);
    const good = readFileSync(reviewFile, 'utf8');
    const damaged = good.slice(0, good.length / 2);
    // A second view of the reviews whose warnings are counted (the window's goes to the screen).
    const warned: string[] = [];
    const counted = new ReviewComments(ext.store, ext.agents, () => undefined, (m) => warned.push(m));
    try {
      writeFileSync(reviewFile, damaged);
      await ext.review.reload(job);
      assert.equal(ext.review.threadAt(job.id, 'src/hello.js', 1), undefined, 'the threads of a review that cannot be read are not shown as kept');
      assert.match(ext.review.problemOf(job.id) ?? '', /^The review of agent \S+ \(.+\) is not valid JSON; it was left as it is\.$/);
      await counted.reload(job);
      await counted.reload(job);
      assert.equal(warned.length, 1, `said once over two re-reads: ${JSON.stringify(warned)}`);
      assert.match(warned[0], /^The review of agent \S+ \(.+\) is not valid JSON; it was left as it is\.$/);
      assert.equal(readFileSync(reviewFile, 'utf8'), damaged, 'the file is left as it is');
      // Put right by hand: the threads come back, and nothing is said any more.
      writeFileSync(reviewFile, good);
      await ext.review.reload(job);
      await counted.reload(job);
      assert.ok(ext.review.threadAt(job.id, 'src/hello.js', 1), 'the comment is shown again');
      assert.equal(ext.review.problemOf(job.id), undefined);
      assert.equal(warned.length, 1);
      // Damaged again after that: a new problem, said again.
      writeFileSync(reviewFile, damaged);
      await counted.reload(job);
      assert.equal(warned.length, 2);
    } finally {
      counted.dispose();
      writeFileSync(reviewFile, good);
    }
  });

  // Bug 69: a comment added while its agent was being cleaned up was saved (nothing lost) but its
  // write, ending after the agent's threads were cleared, showed the departed agent's threads again.
  it('a comment whose save ends after its agent was cleaned up is kept, and brings none of its threads back', async () => {
    const job = await start({ title: 'Leaves mid-comment', command: ['true'] });
    await waitForState(ext, job.id, ['completed']);
    const file = vscode.Uri.file(path.join(job.worktree!, 'src', 'hello.js'));
    assert.ok(ext.review.agentOf(file), 'the ended agent\'s worktree can still be commented');
    const thread = ext.review.controller.createCommentThread(file, new vscode.Range(2, 0, 2, 0), []);
    const reviewFile = path.join(ext.store.jobDir(job.id), REVIEW_FILE);
    let adding!: Thenable<unknown>;
    // The review's lock held while the agent is cleaned up: the add is in flight all that time.
    await withLock(`${reviewFile}.lock`, 'the review (held by the test)', DEFAULT_LOCK_OPTIONS, async () => {
      adding = vscode.commands.executeCommand('paddock.addReviewComment', { thread, text: 'Added as it left' });
      await vscode.commands.executeCommand('paddock.cleanUp', job.id, { confirmed: true });
      await waitFor('cleanup to complete', async () => (await ext.store.read(job.id)).cleanup?.phase === 'complete', 15_000);
      await ext.agents.refresh(job.id);
      await waitFor('the cleaned agent to take no comments', () => (ext.review.agentOf(file) ? undefined : true), 5_000);
    });
    const added = await adding;
    assert.ok(!isCommandFailure(added), `the add was saved: ${JSON.stringify(added)}`);
    assert.deepEqual((await readReview(ext.store, job.id)).comments.map((c) => [c.path, c.line, c.body]), [['src/hello.js', 3, 'Added as it left']], 'nothing lost');
    assert.equal(ext.review.threadAt(job.id, 'src/hello.js', 3), undefined, 'the cleaned agent\'s thread came back after its add was saved');
    await ext.review.reload(job);
    assert.equal(ext.review.threadAt(job.id, 'src/hello.js', 3), undefined, 'nor on a re-read');
  });

  // Bug 69, the delete: its write, ending after the agent left, showed the agent's other threads again.
  it('a comment deleted as its agent is cleaned up stays deleted, and brings none of the other threads back', async () => {
    const job = await start({ title: 'Leaves mid-delete', command: ['true'] });
    await waitForState(ext, job.id, ['completed']);
    const file = vscode.Uri.file(path.join(job.worktree!, 'src', 'hello.js'));
    for (const [line, text] of [[1, 'Keep this one'], [3, 'Delete this one']] as const) {
      const thread = ext.review.controller.createCommentThread(file, new vscode.Range(line, 0, line, 0), []);
      assert.ok(!isCommandFailure(await vscode.commands.executeCommand('paddock.addReviewComment', { thread, text })), text);
    }
    const doomed = ext.review.threadAt(job.id, 'src/hello.js', 4);
    assert.ok(doomed?.comments[0], 'the comment to delete is shown');
    const reviewFile = path.join(ext.store.jobDir(job.id), REVIEW_FILE);
    let deleting!: Thenable<unknown>;
    await withLock(`${reviewFile}.lock`, 'the review (held by the test)', DEFAULT_LOCK_OPTIONS, async () => {
      deleting = vscode.commands.executeCommand('paddock.deleteReviewComment', doomed.comments[0]);
      await vscode.commands.executeCommand('paddock.cleanUp', job.id, { confirmed: true });
      await waitFor('cleanup to complete', async () => (await ext.store.read(job.id)).cleanup?.phase === 'complete', 15_000);
      await ext.agents.refresh(job.id);
      await waitFor('the cleaned agent to take no comments', () => (ext.review.agentOf(file) ? undefined : true), 5_000);
    });
    assert.ok(!isCommandFailure(await deleting), 'the delete was saved');
    assert.deepEqual((await readReview(ext.store, job.id)).comments.map((c) => [c.line, c.body]), [[2, 'Keep this one']], 'deleted, the other kept');
    assert.equal(ext.review.threadAt(job.id, 'src/hello.js', 2), undefined, "the cleaned agent's other thread came back after the delete was saved");
  });
});
