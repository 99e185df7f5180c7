/**
 * Retry of a Claude Code agent that never saved a conversation (bug 58). The profile resumes with
 * `--continue`, which Claude Code refuses ("No conversation found to continue", exit 1) in a folder
 * it has no conversation for: an agent that could not reach its API, or was stopped at the trust
 * question a new worktree asks, saved none. Before the fix every retry of it failed at once; it now
 * starts afresh with its start command, and continues once a conversation exists.
 */
import * as assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Coordinator } from '../../../../src/core/coordinator';
import type { JobRecord } from '../../../../src/core/store';
import { newCommentId, updateReview, type ReviewComment } from '../../../../src/core/store/reviewFile';
import { CoordinatorSandbox, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';

function comment(path: string, line: number, body: string): ReviewComment {
  return { id: newCommentId(), path, line, body, createdAt: new Date().toISOString(), sentAt: null, sentToGeneration: null };
}

/**
 * Like `claude`: sessions are saved as `<config>/projects/<cwd, every other character than a letter or
 * digit as '-'>/<session>.jsonl`; `--continue` without one there says so and exits 1; a start that
 * cannot reach the API (`$PADDOCK_REPO.unreachable` exists here) exits 1 before saving anything.
 */
const FAKE_CLAUDE = `#!/bin/bash
project="$CLAUDE_CONFIG_DIR/projects/$(pwd -P | sed 's/[^A-Za-z0-9]/-/g')"
continuing=no
for a in "$@"; do [ "$a" = --continue ] && continuing=yes; done
if [ $continuing = yes ]; then
  if ! ls "$project"/*.jsonl >/dev/null 2>&1; then echo "No conversation found to continue."; exit 1; fi
  echo "continue: \${@: -1}" >> runs.txt
  exit 0
fi
if [ -e "$PADDOCK_REPO.unreachable" ]; then echo "Unable to connect to Anthropic services"; exit 1; fi
mkdir -p "$project"
echo '{"type":"user","message":{"role":"user","content":"hi"}}' > "$project/$$-session.jsonl"
echo "new: \${@: -1}" >> runs.txt
`;

describe('Retry: resume only a conversation the agent saved', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  /** A fake `claude` on PATH, and a claude agent whose first execution could not reach its API (it saved no conversation). */
  async function agentWithoutConversation(): Promise<{ c: Coordinator; job: JobRecord }> {
    const bin = join(sb.root, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'claude'), FAKE_CLAUDE);
    chmodSync(join(bin, 'claude'), 0o755);
    sb.env.PATH = `${bin}:${sb.env.PATH}`;
    sb.env.CLAUDE_CONFIG_DIR = join(sb.root, 'claude-config');
    const unreachable = `${sb.repo}.unreachable`;
    writeFileSync(unreachable, '');
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, profile: 'claude', prompt: 'fix the parser' });
    const first = await sb.waitEnded(job.id);
    assert.equal(first.lifecycle.state, 'failed', 'it could not reach its API');
    rmSync(unreachable);
    return { c, job };
  }

  it('a claude agent that saved no conversation starts afresh with its prompt; one that did continues it', async () => {
    const { c, job } = await agentWithoutConversation();

    await c.retry(job.id);
    const second = await sb.waitEnded(job.id);
    assert.equal(second.lifecycle.generation, 2);
    assert.equal(second.lifecycle.state, 'completed', `${second.lifecycle.detail}: ${(await sb.store.readOutput(job.id)).toString().slice(-200)}`);
    assert.deepEqual(second.command, job.command, 'started afresh: the start command, its prompt with it');
    assert.equal(readFileSync(join(job.worktree!, 'runs.txt'), 'utf8'), 'new: fix the parser\n');

    await c.retry(job.id, { prompt: 'now the tests' });
    const third = await sb.waitEnded(job.id);
    assert.equal(third.lifecycle.state, 'completed', third.lifecycle.detail ?? '');
    assert.ok(third.command.includes('--continue'), `continued: ${third.command.join(' ')}`);
    assert.equal(readFileSync(join(job.worktree!, 'runs.txt'), 'utf8'), 'new: fix the parser\ncontinue: now the tests\n');
  });

  it('a retry with a prompt of its own (a review) starts a new conversation with it on the command line', async () => {
    const { c, job } = await agentWithoutConversation();
    await c.retry(job.id, { prompt: 'address the review' });
    const again = await sb.waitEnded(job.id);
    assert.equal(again.lifecycle.state, 'completed', again.lifecycle.detail ?? '');
    assert.ok(!again.command.includes('--continue'), again.command.join(' '));
    assert.deepEqual(again.command.slice(-2), ['--', 'address the review'], 'in the argv, never typed onto its first screen');
    assert.equal(readFileSync(join(job.worktree!, 'runs.txt'), 'utf8'), 'new: address the review\n');
  });

  // Review D: Send Review to such an agent began a new conversation (bug 58: it had none to lose) but
  // said "Retried … with 1 review comment(s)", as if the agent went on where it stopped.
  it('Send Review to an agent that saved no conversation says it began a new one; once there is one, it continues', async () => {
    const { c, job } = await agentWithoutConversation();
    await updateReview(sb.store, job.id, (r) => ({ ...r, comments: [comment('README.md', 1, 'rename this')] }));
    const fresh = await c.sendReview(job.id);
    assert.equal(fresh.how, 'retry');
    assert.equal(fresh.newConversation, true, 'a new conversation is said to be one');
    const second = await sb.waitEnded(job.id);
    assert.ok(!second.command.includes('--continue'), second.command.join(' '));
    assert.match(readFileSync(join(job.worktree!, 'runs.txt'), 'utf8'), /^new: Please address these review comments on your changes: \(1\) README\.md:1: rename this\n$/);

    await updateReview(sb.store, job.id, (r) => ({ ...r, comments: [...r.comments, comment('README.md', 2, 'and this')] }));
    const continued = await c.sendReview(job.id);
    assert.equal(continued.newConversation, false, 'the conversation saved is continued');
    const third = await sb.waitEnded(job.id);
    assert.ok(third.command.includes('--continue'), third.command.join(' '));
  });
});
