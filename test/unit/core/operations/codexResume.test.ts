/**
 * Send Review to a Codex agent that saved no session (bug 179, review D2). Codex's `resume --last`
 * continues the latest session recorded for its folder and, with none, starts a new conversation by
 * itself (codex-rs tui: `unwrap_or(ResumeSelection::StartFresh)`). The review then landed in a new
 * conversation while the person was told "Retried … with 1 review comment(s)", as if it went on.
 * Before the fix only Claude Code's `--continue` was looked at, so `newConversation` was false here.
 */
import * as assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newCommentId, updateReview, type ReviewComment } from '../../../../src/core/store/reviewFile';
import { CoordinatorSandbox, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';

function comment(path: string, line: number, body: string): ReviewComment {
  return { id: newCommentId(), path, line, body, createdAt: new Date().toISOString(), sentAt: null, sentToGeneration: null };
}

/**
 * Like `codex`: a session is `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl` whose first line
 * (`session_meta`) names its cwd; `resume --last` continues one for this folder, else starts afresh
 * (and takes its prompt typed in); a start that cannot reach the API (`$PADDOCK_REPO.unreachable`)
 * exits 1 before saving anything.
 */
const FAKE_CODEX = `#!/bin/bash
resume=no; for a in "$@"; do [ "$a" = resume ] && resume=yes; done
if [ -e "$PADDOCK_REPO.unreachable" ]; then echo "stream error: unreachable"; exit 1; fi
cwd=$(pwd -P); kind=new
if [ $resume = yes ] && grep -lsF "\\"cwd\\":\\"$cwd\\"" "$CODEX_HOME"/sessions/*/*/*/rollout-*.jsonl >/dev/null; then kind=continue; fi
day="$CODEX_HOME/sessions/$(date +%Y/%m/%d)"; mkdir -p "$day"
[ $kind = new ] && printf '{"type":"session_meta","payload":{"cwd":"%s"}}\\n' "$cwd" > "$day/rollout-$$.jsonl"
if [ $resume = yes ]; then read -r line; else line="\${@: -1}"; fi
echo "$kind: $line" >> runs.txt
`;

describe('Send Review to a Codex agent: a new conversation is said to be one', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  it('a codex agent that saved no session: the review begins a new conversation and is said to; once one is saved, it continues', async () => {
    const bin = join(sb.root, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'codex'), FAKE_CODEX);
    chmodSync(join(bin, 'codex'), 0o755);
    sb.env.PATH = `${bin}:${sb.env.PATH}`;
    sb.env.CODEX_HOME = join(sb.root, 'codex-home');
    writeFileSync(`${sb.repo}.unreachable`, '');
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, profile: 'codex', prompt: 'fix the parser' });
    assert.equal((await sb.waitEnded(job.id)).lifecycle.state, 'failed', 'it could not reach its API');
    rmSync(`${sb.repo}.unreachable`);

    await updateReview(sb.store, job.id, (r) => ({ ...r, comments: [comment('README.md', 1, 'rename this')] }));
    const fresh = await c.sendReview(job.id);
    assert.equal(fresh.how, 'retry');
    const second = await sb.waitEnded(job.id);
    assert.equal(second.lifecycle.state, 'completed', second.lifecycle.detail ?? '');
    assert.deepEqual(second.command.slice(-2), ['resume', '--last'], 'the command is as it is: codex starts afresh by itself');
    assert.match(readFileSync(join(job.worktree!, 'runs.txt'), 'utf8'), /^new: Please address these review comments/);
    assert.equal(fresh.newConversation, true, 'a new conversation is said to be one');

    await updateReview(sb.store, job.id, (r) => ({ ...r, comments: [...r.comments, comment('README.md', 2, 'and this')] }));
    const continued = await c.sendReview(job.id);
    assert.equal((await sb.waitEnded(job.id)).lifecycle.state, 'completed');
    assert.match(readFileSync(join(job.worktree!, 'runs.txt'), 'utf8'), /\ncontinue: Please address these review comments on your changes: \(1\) README\.md:2: and this\n$/);
    assert.equal(continued.newConversation, false, 'the session saved is continued');
  });
});
