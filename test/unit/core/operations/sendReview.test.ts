/** Send Review to Agent on real workers: typed into a running agent, or a retry's prompt for an ended one; comments marked sent. */
import * as assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PaddockError } from '../../../../src/core/common/errors';
import { newCommentId, readReview, updateReview, REVIEW_FILE, type ReviewComment } from '../../../../src/core/store/reviewFile';
import { reviewPrompt } from '../../../../src/core/operations/sendReview';
import { canSendReview } from '../../../../src/core/operations/rules';
import { capabilitiesOf } from '../../../../src/ui/tree/presentation';
import { CoordinatorSandbox, sleep, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';

function comment(path: string, line: number, body: string): ReviewComment {
  return { id: newCommentId(), path, line, body, createdAt: new Date().toISOString(), sentAt: null, sentToGeneration: null };
}

describe('sendReview operation and review.json', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  it('words the comments as one line, in file and line order', () => {
    const text = reviewPrompt([comment('src/b.ts', 9, 'two\nlines'), comment('a.txt', 3, 'rename this')]);
    assert.equal(text, 'Please address these review comments on your changes: (1) a.txt:3: rename this (2) src/b.ts:9: two lines');
  });

  // Bug: a file name with a newline split the prompt (the agent submitted its first half on that
  // Enter); a comment's ESC or Ctrl-C reached the agent's terminal as keys.
  it('keeps the prompt one line of printable text whatever the file names and comments hold', () => {
    const text = reviewPrompt([comment('notes\nDone.md', 2, 'stop\x03 here \x1b[2J now'), comment('a\rb.txt', 1, 'ok\u2028fine')]);
    // eslint-disable-next-line no-control-regex -- looking for control characters is the point
    assert.doesNotMatch(text, /[\x00-\x1f\x7f-\x9f\u2028\u2029]/);
    assert.equal(text, 'Please address these review comments on your changes: (1) a\\rb.txt:1: ok fine (2) notes\\nDone.md:2: stop\\x03 here \\x1b[2J now');
  });

  it('types the unsent comments into a running agent, marks them sent, and sends nothing twice', async () => {
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'cat > got.txt'] });
    await sb.waitForState(job.id, ['running']);
    await updateReview(sb.store, job.id, (r) => ({ ...r, comments: [comment('README.md', 1, 'Say hello to the world')] }));
    const sent = await c.sendReview(job.id);
    assert.equal(sent.how, 'typed');
    const got = join(job.worktree!, 'got.txt');
    await sb.waitFor(job.id, () => readFileSync(got, 'utf8').includes('README.md:1: Say hello to the world'));
    const review = await readReview(sb.store, job.id);
    assert.equal(review.comments.length, 1);
    assert.ok(review.comments[0].sentAt, 'marked sent');
    assert.equal(review.comments[0].sentToGeneration, 1);
    await assert.rejects(c.sendReview(job.id), (e: unknown) => e instanceof PaddockError && e.kind === 'usage' && /no unsent comments/.test(e.message));
    await c.stop(job.id, { force: true });
  });

  // Bug 180: a comment on a file the agent deleted or renamed since was sent as `file:line` as if the
  // file were still there; the agent looked for a file it no longer had.
  it('says of a comment whose file the agent has since deleted or renamed that the file is gone', async () => {
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', 'cat > got.txt'] });
    await sb.waitForState(job.id, ['running']);
    writeFileSync(join(job.worktree!, 'old.txt'), 'one\ntwo\n');
    writeFileSync(join(job.worktree!, 'was-file.txt'), 'x\n');
    const comments = [comment('old.txt', 2, 'fix two'), comment('README.md', 1, 'still here'), comment('was-file.txt', 1, 'and x')];
    await updateReview(sb.store, job.id, (r) => ({ ...r, comments }));
    renameSync(join(job.worktree!, 'old.txt'), join(job.worktree!, 'new.txt'));
    // A file that became a folder is not the file the comment was on.
    rmSync(join(job.worktree!, 'was-file.txt'));
    mkdirSync(join(job.worktree!, 'was-file.txt'));
    const sent = await c.sendReview(job.id);
    assert.equal(
      sent.prompt,
      'Please address these review comments on your changes: (1) old.txt:2 (a file you have since deleted or renamed): fix two (2) README.md:1: still here (3) was-file.txt:1 (a file you have since deleted or renamed): and x',
    );
    await sb.waitFor(job.id, () => readFileSync(join(job.worktree!, 'got.txt'), 'utf8').includes('old.txt:2 (a file you have since deleted or renamed): fix two'));
    await c.stop(job.id, { force: true });
  });

  it('a review sent from two windows at once reaches the agent once', async () => {
    // Windows: coordinators with their scheduler loop and store watcher (the fixture's default is the CLI's one-shot kind).
    const [one, two] = [sb.coordinator({}, { tickMs: 3000 }), sb.coordinator({}, { tickMs: 3000 })];
    await Promise.all([one.ready, two.ready]);
    const job = await one.start({ repo: sb.repo, command: ['sh', '-c', 'cat > got.txt'] });
    await sb.waitForState(job.id, ['running']);
    await updateReview(sb.store, job.id, (r) => ({ ...r, comments: [comment('README.md', 1, 'only once')] }));
    const [a, b] = await Promise.allSettled([one.sendReview(job.id), two.sendReview(job.id)]);
    const sent = [a, b].filter((r) => r.status === 'fulfilled');
    const refused = [a, b].filter((r) => r.status === 'rejected').map((r) => (r.reason as Error).message);
    assert.equal(sent.length, 1, 'one send went through');
    assert.match(refused[0], /review has no unsent comments/);
    const got = join(job.worktree!, 'got.txt');
    await sb.waitFor(job.id, () => readFileSync(got, 'utf8').includes('only once'));
    await sleep(300); // a second typing would follow at once
    assert.equal(readFileSync(got, 'utf8').split('only once').length - 1, 1, 'typed once');
    await one.stop(job.id, { force: true });
  });

  it('gives an ended agent the review as its retry\'s prompt, through resume arguments with {prompt}', async () => {
    const c = sb.coordinator({
      profiles: { echoer: { command: 'sh', args: ['-c', 'echo first'], resumeArgs: ['-c', 'printf "%s" "$1" > prompt.txt', 'sh', '{prompt}'] } },
    });
    const job = await c.start({ repo: sb.repo, profile: 'echoer' });
    await sb.waitEnded(job.id);
    await updateReview(sb.store, job.id, (r) => ({ ...r, comments: [comment('README.md', 1, 'Use a capital H')] }));
    const sent = await c.sendReview(job.id);
    assert.equal(sent.how, 'retry');
    assert.equal(sent.generation, 2);
    const again = await sb.waitFor(job.id, (j) => j.lifecycle.generation === 2 && j.lifecycle.state === 'completed');
    assert.equal(readFileSync(join(job.worktree!, 'prompt.txt'), 'utf8'), 'Please address these review comments on your changes: (1) README.md:1: Use a capital H');
    assert.equal(again.command.at(-1), sent.prompt);
    assert.equal((await readReview(sb.store, job.id)).comments[0].sentToGeneration, 2);
  });

  // Bug 179: an ended agent without resume arguments was retried from scratch with the review as its
  // prompt: a fresh program that had lost the work it was asked about, and nothing said so.
  it('refuses, in one sentence, to send a review to an ended agent that cannot resume, and starts nothing', async () => {
    const c = sb.coordinator({ profiles: { plain: { command: 'sh', args: ['-c', 'touch ran-$(date +%s%N)'], resumeArgs: null } } });
    for (const start of [{ repo: sb.repo, command: ['sh', '-c', 'touch ran-$(date +%s%N)'] }, { repo: sb.repo, profile: 'plain' }]) {
      const job = await c.start(start);
      await sb.waitEnded(job.id);
      await updateReview(sb.store, job.id, (r) => ({ ...r, comments: [comment('README.md', 1, 'again please')] }));
      await assert.rejects(c.sendReview(job.id), (e: unknown) => {
        assert.ok(e instanceof PaddockError && e.kind === 'usage', String(e));
        assert.match(e.message, /has ended and has no resume arguments.*the review was not sent/);
        assert.doesNotMatch(e.message, /\n/, 'one sentence');
        return true;
      });
      await sleep(300);
      const after = await sb.store.read(job.id);
      assert.equal(after.lifecycle.generation, 1, 'no retry was begun');
      assert.equal(readdirSync(job.worktree!).filter((n) => n.startsWith('ran-')).length, 1, 'the agent ran once');
      assert.equal((await readReview(sb.store, job.id)).comments[0].sentAt, null, 'the comment is still unsent');
      // One rule for every door: the row's menu and the palette's picker do not offer it either.
      assert.equal(canSendReview(after), false);
      assert.ok(!capabilitiesOf(after).includes('review'), capabilitiesOf(after).join(','));
    }
  });

  // An agent whose resume arguments carry no `{prompt}` can resume: the review is typed into its retry.
  it('types the review into a retry whose resume arguments carry no prompt', async () => {
    const c = sb.coordinator({ profiles: { promptless: { command: 'sh', args: ['-c', 'echo first'], resumeArgs: ['-c', 'cat > got.txt'] } } });
    const job = await c.start({ repo: sb.repo, profile: 'promptless' });
    const ended = await sb.waitEnded(job.id);
    await updateReview(sb.store, job.id, (r) => ({ ...r, comments: [comment('README.md', 1, 'again please')] }));
    assert.ok(canSendReview(ended) && capabilitiesOf(ended).includes('review'), 'offered');
    const sent = await c.sendReview(job.id);
    assert.equal(sent.how, 'retry');
    assert.equal(sent.newConversation, false);
    await sb.waitFor(job.id, () => {
      try {
        return readFileSync(join(job.worktree!, 'got.txt'), 'utf8').includes('README.md:1: again please');
      } catch {
        return false;
      }
    });
    await c.stop(job.id, { force: true });
  });

  it('refuses a review.json that does not validate, and leaves it as it is', async () => {
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['true'] });
    const file = join(sb.store.jobDir(job.id), REVIEW_FILE);
    writeFileSync(file, JSON.stringify({ version: 1, comments: [{ id: 'x' }] }));
    await assert.rejects(readReview(sb.store, job.id), (e: unknown) => e instanceof PaddockError && /not valid/.test(e.message));
    await assert.rejects(updateReview(sb.store, job.id, (r) => r), /not valid/);
    assert.equal(readFileSync(file, 'utf8'), JSON.stringify({ version: 1, comments: [{ id: 'x' }] }));
  });

  // A review.json written by hand or by another program must not put a comment thread (and the
  // prompt's reference) on a file outside the agent's worktree.
  it('refuses comments whose path is absolute or climbs out of the worktree', async () => {
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['true'] });
    const file = join(sb.store.jobDir(job.id), REVIEW_FILE);
    for (const bad of ['/etc/passwd', '../other/x.ts', 'src/../../x.ts', '..']) {
      writeFileSync(file, JSON.stringify({ version: 1, comments: [comment(bad, 1, 'look')] }));
      await assert.rejects(readReview(sb.store, job.id), (e: unknown) => e instanceof PaddockError && /not valid/.test(e.message), bad);
    }
    for (const good of ['..hidden/x.ts', 'a/b..c.ts', 'x..']) {
      writeFileSync(file, JSON.stringify({ version: 1, comments: [comment(good, 1, 'look')] }));
      assert.equal((await readReview(sb.store, job.id)).comments[0].path, good);
    }
  });
});
