/**
 * Tokens from session transcripts in each agent's documented format: Claude
 * Code's project folder of JSON-lines sessions (usage repeated on each line of
 * one message), Codex's dated rollout files (running totals in token_count
 * events, the session's cwd on its first line). Read incrementally, including
 * a transcript that grows while it is read and ends in a partial line.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, closeSync, constants, mkdirSync, mkdtempSync, openSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonlTail } from '../../../../src/core/usage/jsonlTail';
import { claudeProjectDir, codexSessionsDir, dayFolders, transcriptKindOf, TranscriptReader, type TranscriptAgent } from '../../../../src/core/usage/transcripts';

const line = (value: unknown) => `${JSON.stringify(value)}\n`;

function claudeAssistant(id: string, usage: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return line({ type: 'assistant', uuid: `u-${Math.random()}`, sessionId: 's1', message: { id, role: 'assistant', model: 'claude-sonnet-4', content: [{ type: 'text', text: 'hi' }], usage }, ...extra });
}

function codexTokenCount(input: number, cached: number, output: number) {
  return line({
    timestamp: new Date().toISOString(),
    type: 'event_msg',
    payload: {
      type: 'token_count',
      info: {
        total_token_usage: { input_tokens: input, cached_input_tokens: cached, output_tokens: output, reasoning_output_tokens: 0, total_tokens: input + output },
        last_token_usage: { input_tokens: 1, cached_input_tokens: 0, output_tokens: 1, reasoning_output_tokens: 0, total_tokens: 2 },
        model_context_window: 272000,
      },
      rate_limits: null,
    },
  });
}

describe('usage/transcripts', () => {
  let home: string;
  let env: NodeJS.ProcessEnv;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'paddock-transcripts-'));
    env = { HOME: home };
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('knows which agents write transcripts, by program name', () => {
    assert.equal(transcriptKindOf(['claude', '--', 'x']), 'claude');
    assert.equal(transcriptKindOf(['/usr/local/bin/codex']), 'codex');
    assert.equal(transcriptKindOf(['aider']), undefined);
    assert.equal(transcriptKindOf(['sh', '-c', 'claude']), undefined, 'no guess through a shell');
  });

  it('Claude Code: sums usage over sessions, once per message id, with the cost it wrote', async () => {
    const cwd = '/work/repo.worktrees/abc123';
    const dir = claudeProjectDir(cwd, env);
    assert.equal(dir, join(home, '.claude', 'projects', '-work-repo-worktrees-abc123'));
    assert.equal(claudeProjectDir(cwd, { ...env, CLAUDE_CONFIG_DIR: '/cfg' }), '/cfg/projects/-work-repo-worktrees-abc123');
    mkdirSync(dir, { recursive: true });
    const usage1 = { input_tokens: 10, cache_creation_input_tokens: 100, cache_read_input_tokens: 1000, output_tokens: 5 };
    writeFileSync(
      join(dir, 'session-a.jsonl'),
      line({ type: 'summary', summary: 'x', leafUuid: 'l' }) +
        line({ type: 'user', message: { role: 'user', content: 'do it' } }) +
        claudeAssistant('msg_1', usage1, { costUSD: 0.5 }) +
        // The same message's next content block repeats its usage: counted once.
        claudeAssistant('msg_1', usage1, { costUSD: 0.5 }) +
        claudeAssistant('msg_2', { input_tokens: 1, output_tokens: 20 }),
    );
    writeFileSync(join(dir, 'session-b.jsonl'), claudeAssistant('msg_3', { input_tokens: 2, cache_read_input_tokens: 3, output_tokens: 4 }));
    const reader = new TranscriptReader(env);
    const agent: TranscriptAgent = { id: 'abc123', kind: 'claude', cwd, createdAtMs: Date.now(), ownFolder: true };
    assert.deepEqual(await reader.totalsOf(agent), { tokensIn: 1110 + 1 + 5, tokensOut: 5 + 20 + 4, costUsd: 0.5 });
    assert.equal(await reader.totalsOf({ ...agent, cwd: '/elsewhere' }), null, 'no transcript: no figure');
    // A resumed conversation (retry with --continue) repeats earlier messages in its new session file: once each.
    writeFileSync(join(dir, 'session-c.jsonl'), claudeAssistant('msg_1', usage1, { costUSD: 0.5 }) + claudeAssistant('msg_4', { input_tokens: 7, output_tokens: 1 }));
    assert.deepEqual(await reader.totalsOf(agent), { tokensIn: 1110 + 1 + 5 + 7, tokensOut: 5 + 20 + 4 + 1, costUsd: 0.5 });
  });

  it('Claude Code in a shared folder: sessions older than the agent are the person\'s, not counted', async () => {
    const cwd = '/work/repo';
    const dir = claudeProjectDir(cwd, env);
    mkdirSync(dir, { recursive: true });
    const old = join(dir, 'old.jsonl');
    writeFileSync(old, claudeAssistant('m', { input_tokens: 999, output_tokens: 999 }));
    const hourAgo = (Date.now() - 3_600_000) / 1000;
    utimesSync(old, hourAgo, hourAgo);
    const reader = new TranscriptReader(env);
    assert.equal(await reader.totalsOf({ id: 'x', kind: 'claude', cwd, createdAtMs: Date.now(), ownFolder: false }), null);
  });

  it('Codex: the latest running total of the rollouts whose session ran in the agent\'s folder', async () => {
    const created = Date.now();
    const d = new Date(created);
    const dayDir = join(home, '.codex', 'sessions', String(d.getFullYear()), String(d.getMonth() + 1).padStart(2, '0'), String(d.getDate()).padStart(2, '0'));
    mkdirSync(dayDir, { recursive: true });
    assert.ok(dayFolders(codexSessionsDir(env), created, created).includes(dayDir), 'the day folders looked in hold today\'s');
    const meta = (cwd: string) => line({ timestamp: new Date().toISOString(), type: 'session_meta', payload: { id: 'sess', cwd, originator: 'codex_cli_rs', cli_version: '0.58.0' } });
    writeFileSync(
      join(dayDir, 'rollout-2026-12-03T09-00-00-aaaa.jsonl'),
      meta('/w/agent') +
        line({ type: 'turn_context', payload: { cwd: '/w/agent', model: 'gpt-5-codex' } }) +
        line({ type: 'event_msg', payload: { type: 'token_count', info: null, rate_limits: null } }) +
        codexTokenCount(1000, 800, 50) +
        codexTokenCount(3000, 2500, 120),
    );
    writeFileSync(join(dayDir, 'rollout-2026-12-03T09-01-00-bbbb.jsonl'), meta('/w/other') + codexTokenCount(77, 0, 77));
    const reader = new TranscriptReader(env);
    const agent: TranscriptAgent = { id: 'agent1', kind: 'codex', cwd: '/w/agent', createdAtMs: created, ownFolder: true };
    assert.deepEqual(await reader.totalsOf(agent), { tokensIn: 3000, tokensOut: 120, costUsd: null });
    assert.equal(await reader.totalsOf({ ...agent, cwd: '/w/none' }), null);
    assert.deepEqual(await reader.totalsOf({ ...agent, cwd: '/w/other', id: 'agent2' }), { tokensIn: 77, tokensOut: 77, costUsd: null });
    assert.equal(codexSessionsDir({ CODEX_HOME: '/c' }), '/c/sessions');
  });

  it('values outside the formats are not counted: a fraction, a negative, a string, a negative cost', async () => {
    const cwd = '/w/odd';
    const dir = claudeProjectDir(cwd, env);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 's.jsonl'),
      claudeAssistant('good', { input_tokens: 10, output_tokens: 1 }, { costUSD: 0.25 }) +
        claudeAssistant('fraction', { input_tokens: 5000.5, output_tokens: 1 }) +
        claudeAssistant('negative', { input_tokens: 5, cache_read_input_tokens: -50, output_tokens: 1 }) +
        claudeAssistant('string', { input_tokens: '100', output_tokens: 1 }) +
        claudeAssistant('badCost', { input_tokens: 20, output_tokens: 2 }, { costUSD: -1 }),
    );
    const reader = new TranscriptReader(env);
    const agent: TranscriptAgent = { id: 'o', kind: 'claude', cwd, createdAtMs: Date.now(), ownFolder: true };
    assert.deepEqual(await reader.totalsOf(agent), { tokensIn: 30, tokensOut: 3, costUsd: 0.25 }, 'the odd lines are left out; a negative cost is no cost');

    const d = new Date();
    const dayDir = join(codexSessionsDir(env), String(d.getFullYear()), String(d.getMonth() + 1).padStart(2, '0'), String(d.getDate()).padStart(2, '0'));
    mkdirSync(dayDir, { recursive: true });
    writeFileSync(join(dayDir, 'rollout-odd.jsonl'), line({ type: 'session_meta', payload: { cwd } }) + codexTokenCount(40, 0, 4) + codexTokenCount(50.5, 0, 5));
    assert.deepEqual(await reader.totalsOf({ ...agent, kind: 'codex' }), { tokensIn: 40, tokensOut: 4, costUsd: null }, 'the last valid running total');
  });

  it('a transcript that grows while it is read: only appended lines are parsed, a partial last line waits', async () => {
    const cwd = '/w/growing';
    const dir = claudeProjectDir(cwd, env);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 's.jsonl');
    const reader = new TranscriptReader(env);
    const agent: TranscriptAgent = { id: 'g', kind: 'claude', cwd, createdAtMs: Date.now(), ownFolder: true };

    writeFileSync(file, claudeAssistant('m1', { input_tokens: 10, output_tokens: 1 }));
    assert.deepEqual(await reader.totalsOf(agent), { tokensIn: 10, tokensOut: 1, costUsd: null });

    // The writer is mid-line: half of the next line is on disk.
    const next = claudeAssistant('m2', { input_tokens: 20, output_tokens: 2 });
    const half = Math.floor(next.length / 2);
    appendFileSync(file, next.slice(0, half));
    assert.deepEqual(await reader.totalsOf(agent), { tokensIn: 10, tokensOut: 1, costUsd: null }, 'the partial line waits');
    appendFileSync(file, next.slice(half) + claudeAssistant('m3', { input_tokens: 30, output_tokens: 3 }));
    assert.deepEqual(await reader.totalsOf(agent), { tokensIn: 60, tokensOut: 6, costUsd: null });

    // Appending while a read is under way: the read sees a consistent prefix; the next read the rest.
    const appending = (async () => {
      for (let i = 0; i < 200; i++) {
        appendFileSync(file, claudeAssistant(`x${i}`, { input_tokens: 1, output_tokens: 1 }));
        await new Promise((r) => setImmediate(r));
      }
    })();
    const during = await reader.totalsOf(agent);
    await appending;
    assert.ok(during !== null && during.tokensIn >= 60 && during.tokensIn <= 260);
    assert.deepEqual(await reader.totalsOf(agent), { tokensIn: 260, tokensOut: 206, costUsd: null });
  });

  it('JsonlTail reads each byte once, skips lines that are not JSON, and starts over on a replaced file', async () => {
    const file = join(home, 't.jsonl');
    writeFileSync(file, '{"a":1}\nnot json\n{"a":2}\n{"a":');
    const tail = new JsonlTail(file);
    const seen: unknown[] = [];
    const listener = { restart: () => seen.push('restart'), line: (v: unknown) => seen.push(v) };
    await tail.read(listener);
    assert.deepEqual([...seen], [{ a: 1 }, { a: 2 }]);
    assert.equal(tail.consumed, '{"a":1}\nnot json\n{"a":2}\n'.length);
    appendFileSync(file, '3}\n');
    await tail.read(listener);
    assert.deepEqual([...seen], [{ a: 1 }, { a: 2 }, { a: 3 }]);
    await tail.read(listener);
    assert.equal(seen.length, 3, 'nothing appended: nothing parsed');
    // Replaced by a shorter file (a rewrite): the reader is told first, then the new lines come.
    rmSync(file);
    writeFileSync(file, '{"b":1}\n');
    await tail.read(listener);
    assert.deepEqual(seen.slice(3), ['restart', { b: 1 }]);
  });

  it('JsonlTail given a FIFO or a device where its file was neither hangs nor reads it (bug 58)', async () => {
    // The listing looks at each file first (regular files only); one replaced by a FIFO right after that
    // look held its open for ever: a thread of the pool per sample, until every fs call of the process waited.
    const fifo = join(home, 'session.jsonl');
    execFileSync('mkfifo', [fifo]);
    const seen: unknown[] = [];
    const listener = { restart: () => seen.push('restart'), line: (v: unknown) => seen.push(v) };
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<string>((resolve) => (timer = setTimeout(() => resolve('hung'), 2000)));
    try {
      const outcome = await Promise.race([new JsonlTail(fifo).read(listener).then(() => 'returned'), hung]);
      assert.equal(outcome, 'returned', 'the read of a FIFO must return at once');
    } finally {
      clearTimeout(timer);
      // Lets an open still blocked on the FIFO (the old code) go, so the suite can end.
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // nothing waits on it
      }
    }
    const zero = join(home, 'zero.jsonl');
    symlinkSync('/dev/zero', zero);
    await new JsonlTail(zero).read(listener);
    assert.deepEqual(seen, [], 'nothing read from either');
  });

  it('a transcript replaced or truncated between samples: the new content is counted, now and after', async () => {
    const cwd = '/w/replaced';
    const dir = claudeProjectDir(cwd, env);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 's.jsonl');
    writeFileSync(file, claudeAssistant('m1', { input_tokens: 100, output_tokens: 10 }) + claudeAssistant('m2', { input_tokens: 200, output_tokens: 20 }));
    const reader = new TranscriptReader(env);
    const agent: TranscriptAgent = { id: 'r', kind: 'claude', cwd, createdAtMs: Date.now(), ownFolder: true };
    assert.deepEqual(await reader.totalsOf(agent), { tokensIn: 300, tokensOut: 30, costUsd: null });
    rmSync(file);
    writeFileSync(file, claudeAssistant('m9', { input_tokens: 7, output_tokens: 3 }));
    assert.deepEqual(await reader.totalsOf(agent), { tokensIn: 7, tokensOut: 3, costUsd: null }, 'a replaced file');
    assert.deepEqual(await reader.totalsOf(agent), { tokensIn: 7, tokensOut: 3, costUsd: null }, 'and on the next sample');
    writeFileSync(file, claudeAssistant('m8', { input_tokens: 5, output_tokens: 1 }));
    assert.deepEqual(await reader.totalsOf(agent), { tokensIn: 5, tokensOut: 1, costUsd: null }, 'a file truncated in place');

    const d = new Date();
    const dayDir = join(codexSessionsDir(env), String(d.getFullYear()), String(d.getMonth() + 1).padStart(2, '0'), String(d.getDate()).padStart(2, '0'));
    mkdirSync(dayDir, { recursive: true });
    const rollout = join(dayDir, 'rollout-a.jsonl');
    const meta = line({ type: 'session_meta', payload: { cwd } });
    writeFileSync(rollout, meta + codexTokenCount(1000, 0, 100));
    const codex: TranscriptAgent = { ...agent, kind: 'codex' };
    assert.deepEqual(await reader.totalsOf(codex), { tokensIn: 1000, tokensOut: 100, costUsd: null });
    rmSync(rollout);
    writeFileSync(rollout, meta + codexTokenCount(50, 0, 5));
    assert.deepEqual(await reader.totalsOf(codex), { tokensIn: 50, tokensOut: 5, costUsd: null }, 'a replaced rollout');
    assert.deepEqual(await reader.totalsOf(codex), { tokensIn: 50, tokensOut: 5, costUsd: null });
  });
});
