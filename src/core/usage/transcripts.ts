/**
 * Tokens (and cost, where the agent writes it) from the session transcripts
 * Claude Code and Codex keep as JSON lines in the person's home. Each file is
 * read incrementally (JsonlTail): a sample parses only the lines appended
 * since the previous one. Only the documented usage fields are read; an agent
 * of any other kind has no figure (null), never an estimate.
 *
 * - Claude Code: `$CLAUDE_CONFIG_DIR` or `~/.claude`, `projects/<cwd with every
 *   character other than a letter or digit replaced by '-'>/<session>.jsonl`;
 *   assistant lines carry `message.usage {input_tokens, output_tokens,
 *   cache_creation_input_tokens, cache_read_input_tokens}`, repeated on each
 *   line of one message (one line per content block, same `message.id`), so
 *   they are counted once per message id.
 * - Codex: `$CODEX_HOME` or `~/.codex`, `sessions/YYYY/MM/DD/rollout-*.jsonl`,
 *   whose first line (`session_meta`) names the session's `cwd`; `event_msg`
 *   lines of payload type `token_count` carry the session's running total in
 *   `payload.info.total_token_usage {input_tokens, output_tokens, …}`.
 *
 * Tokens in: every prompt token the model read, cached or not (Codex's
 * input_tokens already include its cached ones; Claude's are the three input
 * fields added). Tokens out: output tokens.
 */
import { promises as fsp } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { JsonlTail } from './jsonlTail';
import type { ClaudeSessionState, CodexSessionState, TranscriptState } from './usageCursor';
import { realPathOr } from '../common/paths';

export interface TokenTotals {
  tokensIn: number;
  tokensOut: number;
  /** The cost the agent itself wrote, in US dollars; null when it wrote none. */
  costUsd: number | null;
}

export type TranscriptKind = 'claude' | 'codex';

/** Which transcripts an agent writes, from its program's name; undefined: no known transcript. */
export function transcriptKindOf(command: readonly string[]): TranscriptKind | undefined {
  const program = basename(command[0] ?? '').replace(/\.(exe|cmd)$/i, '');
  if (program === 'claude') return 'claude';
  if (program === 'codex') return 'codex';
  return undefined;
}

export function claudeProjectDir(cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  const root = env.CLAUDE_CONFIG_DIR || join(env.HOME || homedir(), '.claude');
  return join(root, 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'));
}

export function codexSessionsDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.CODEX_HOME || join(env.HOME || homedir(), '.codex'), 'sessions');
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined);

/**
 * A token count as the formats define it: a whole number, not negative. An
 * absent field is none (0); anything else (a fraction, a negative, a string)
 * is undefined: the line carrying it is not counted (no figure rather than a guess).
 */
function tokenCount(v: unknown): number | undefined {
  if (v === undefined || v === null) return 0;
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined;
}

/** A cost in dollars: a finite amount, not negative; anything else is no cost. */
const dollars = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null);

/** The counts of `fields` in `usage`, or undefined when any is not a count. */
function tokenCounts<K extends string>(usage: Json, fields: readonly K[]): Record<K, number> | undefined {
  const out = {} as Record<K, number>;
  for (const field of fields) {
    const n = tokenCount(usage[field]);
    if (n === undefined) return undefined;
    out[field] = n;
  }
  return out;
}

const CLAUDE_FIELDS = ['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens', 'output_tokens'] as const;
const CODEX_FIELDS = ['input_tokens', 'output_tokens'] as const;

/** One Claude Code session file: usage per message id (a message's lines repeat it). */
export class ClaudeSession {
  private readonly tail: JsonlTail;
  private readonly messages = new Map<string, MessageUsage>();

  /** `from`: where an earlier process stood in this file (checked against it on the first update). */
  constructor(path: string, from?: ClaudeSessionState) {
    this.tail = new JsonlTail(path, from?.position);
    for (const [id, tokensIn, tokensOut, cost] of from?.messages ?? []) this.messages.set(id, { in: tokensIn, out: tokensOut, cost });
  }

  /** Where it stands, for a later process; undefined before the file was read. */
  state(): ClaudeSessionState | undefined {
    const position = this.tail.position;
    if (!position) return undefined;
    return { kind: 'claude', path: this.tail.path, position, messages: [...this.messages].map(([id, m]) => [id, m.in, m.out, m.cost]) };
  }

  async update(): Promise<void> {
    await this.tail.read({ restart: () => this.messages.clear(), line: (line) => this.take(line) });
  }

  private take(value: unknown): void {
    const line = obj(value);
    if (line?.type !== 'assistant') return;
    const message = obj(line.message);
    const usage = obj(message?.usage);
    if (!usage) return;
    const counts = tokenCounts(usage, CLAUDE_FIELDS);
    if (!counts) return;
    const id = typeof message?.id === 'string' ? message.id : typeof line.uuid === 'string' ? line.uuid : `${this.tail.path}:${this.messages.size}`;
    this.messages.set(id, {
      in: counts.input_tokens + counts.cache_creation_input_tokens + counts.cache_read_input_tokens,
      out: counts.output_tokens,
      cost: dollars(line.costUSD),
    });
  }

  /** Usage by message id. */
  entries(): IterableIterator<[string, MessageUsage]> {
    return this.messages.entries();
  }

  totals(): TokenTotals {
    return sumMessages(this.messages.values());
  }
}

interface MessageUsage {
  in: number;
  out: number;
  cost: number | null;
}

function sumMessages(messages: Iterable<MessageUsage>): TokenTotals {
  let tokensIn = 0;
  let tokensOut = 0;
  let costUsd: number | null = null;
  for (const m of messages) {
    tokensIn += m.in;
    tokensOut += m.out;
    if (m.cost !== null) costUsd = (costUsd ?? 0) + m.cost;
  }
  return { tokensIn, tokensOut, costUsd };
}

/** One Codex rollout file: its cwd (first line) and its latest running total. */
export class CodexSession {
  private readonly tail: JsonlTail;
  cwd: string | undefined;
  private latest: TokenTotals | undefined;

  /** `from`: where an earlier process stood in this file (checked against it on the first update). */
  constructor(path: string, from?: CodexSessionState) {
    this.tail = new JsonlTail(path, from?.position);
    this.cwd = from?.cwd ?? undefined;
    this.latest = from?.latest ? { ...from.latest, costUsd: null } : undefined;
  }

  /** Where it stands, for a later process; undefined before the file was read. */
  state(): CodexSessionState | undefined {
    const position = this.tail.position;
    if (!position) return undefined;
    const latest = this.latest ? { tokensIn: this.latest.tokensIn, tokensOut: this.latest.tokensOut } : null;
    return { kind: 'codex', path: this.tail.path, position, cwd: this.cwd ?? null, latest };
  }

  async update(): Promise<void> {
    await this.tail.read({
      restart: () => {
        this.cwd = undefined;
        this.latest = undefined;
      },
      line: (line) => this.take(line),
    });
  }

  private take(value: unknown): void {
    const line = obj(value);
    const payload = obj(line?.payload);
    if (!payload) return;
    if (line?.type === 'session_meta' && typeof payload.cwd === 'string') this.cwd ??= payload.cwd;
    if (line?.type !== 'event_msg' || payload.type !== 'token_count') return;
    const total = obj(obj(payload.info)?.total_token_usage);
    const counts = total && tokenCounts(total, CODEX_FIELDS);
    if (counts) this.latest = { tokensIn: counts.input_tokens, tokensOut: counts.output_tokens, costUsd: null };
  }

  totals(): TokenTotals | undefined {
    return this.latest;
  }
}

export interface TranscriptAgent {
  id: string;
  kind: TranscriptKind;
  /** Where the agent runs: its transcripts are found by it. */
  cwd: string;
  /** When the agent was created (ms): older session files are not its own. */
  createdAtMs: number;
  /** Whether the cwd is the agent's own worktree (a shared folder's older sessions are the person's). */
  ownFolder: boolean;
}

/**
 * Finds and follows each agent's session files; keeps what it read between
 * samples, and between processes through `seed` and `statesOf` (usageCursor.ts).
 */
export class TranscriptReader {
  private readonly claude = new Map<string, ClaudeSession>();
  private readonly codex = new Map<string, CodexSession>();
  /** States saved by an earlier process, by path, until a session file found there takes one. */
  private readonly seeds = new Map<string, TranscriptState>();
  /** The session files each agent's last totals looked at, by agent id. */
  private readonly lookedAt = new Map<string, string[]>();

  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {}

  private readonly realCwds = new Map<string, string>();

  /** Gives where an earlier process stood in session files: one found at such a path goes on from there. */
  seed(states: readonly TranscriptState[]): void {
    for (const state of states) if (!this.claude.has(state.path) && !this.codex.has(state.path)) this.seeds.set(state.path, state);
  }

  /** Where the session files the agent's last totals looked at stand, to be given to a later process. */
  statesOf(agentId: string): TranscriptState[] {
    const out: TranscriptState[] = [];
    for (const path of this.lookedAt.get(agentId) ?? []) {
      const state = (this.claude.get(path) ?? this.codex.get(path))?.state();
      if (state) out.push(state);
    }
    return out;
  }

  private claudeSession(path: string): ClaudeSession {
    let session = this.claude.get(path);
    if (!session) {
      const seed = this.seeds.get(path);
      this.seeds.delete(path);
      this.claude.set(path, (session = new ClaudeSession(path, seed?.kind === 'claude' ? seed : undefined)));
    }
    return session;
  }

  private codexSession(path: string): CodexSession {
    let session = this.codex.get(path);
    if (!session) {
      const seed = this.seeds.get(path);
      this.seeds.delete(path);
      this.codex.set(path, (session = new CodexSession(path, seed?.kind === 'codex' ? seed : undefined)));
    }
    return session;
  }

  /** The agent's totals over its sessions; null when it has written none yet. */
  async totalsOf(agent: TranscriptAgent): Promise<TokenTotals | null> {
    // The agent names its folder as the process sees it (symbolic links resolved, e.g. macOS's /tmp).
    let real = this.realCwds.get(agent.cwd);
    if (real === undefined) {
      // Kept only once resolved: a folder not there yet is looked up again next time.
      const resolved = await realPathOr(agent.cwd, null);
      if (resolved !== null) this.realCwds.set(agent.cwd, resolved);
      real = resolved ?? agent.cwd;
    }
    if (real !== agent.cwd) agent = { ...agent, cwd: real };
    const lookedAt: string[] = [];
    this.lookedAt.set(agent.id, lookedAt);
    const sessions = agent.kind === 'claude' ? await this.claudeSessions(agent, lookedAt) : await this.codexSessions(agent, lookedAt);
    if (sessions.length === 0) return null;
    const sum: TokenTotals = { tokensIn: 0, tokensOut: 0, costUsd: null };
    for (const t of sessions) {
      sum.tokensIn += t.tokensIn;
      sum.tokensOut += t.tokensOut;
      if (t.costUsd !== null) sum.costUsd = (sum.costUsd ?? 0) + t.costUsd;
    }
    return sum;
  }

  /**
   * One total over the agent's Claude Code sessions, each message counted once
   * by its id: a resumed conversation (`--continue` on retry) may repeat
   * earlier messages in its new session file.
   */
  private async claudeSessions(agent: TranscriptAgent, lookedAt: string[]): Promise<TokenTotals[]> {
    const dir = claudeProjectDir(agent.cwd, this.env);
    const messages = new Map<string, MessageUsage>();
    let found = false;
    for (const path of await sessionFiles(dir, (name) => name.endsWith('.jsonl'), agent.ownFolder ? 0 : agent.createdAtMs)) {
      const session = this.claudeSession(path);
      lookedAt.push(path);
      await session.update();
      found = true;
      for (const [id, usage] of session.entries()) messages.set(id, usage);
    }
    return found ? [sumMessages(messages.values())] : [];
  }

  private async codexSessions(agent: TranscriptAgent, lookedAt: string[]): Promise<TokenTotals[]> {
    const out: TokenTotals[] = [];
    for (const dir of dayFolders(codexSessionsDir(this.env), agent.createdAtMs, Date.now())) {
      for (const path of await sessionFiles(dir, (name) => name.startsWith('rollout-') && name.endsWith('.jsonl'), agent.createdAtMs)) {
        const session = this.codexSession(path);
        // Another session's file is kept too: a later process then knows it without reading it again.
        lookedAt.push(path);
        if (session.cwd !== undefined && session.cwd !== agent.cwd) continue; // another session's: not read on
        await session.update();
        const totals = session.totals();
        if (session.cwd === agent.cwd && totals) out.push(totals);
      }
    }
    return out;
  }
}

/** Files in `dir` whose names match and that were written since `sinceMs` (a minute's slack for clocks). */
export async function sessionFiles(dir: string, wanted: (name: string) => boolean, sinceMs: number): Promise<string[]> {
  let names: string[];
  try {
    names = (await fsp.readdir(dir)).filter(wanted).sort();
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const name of names) {
    const path = join(dir, name);
    try {
      const s = await fsp.stat(path);
      if (s.isFile() && s.mtimeMs >= sinceMs - 60_000) out.push(path);
    } catch {
      // gone between listing and looking
    }
  }
  return out;
}

/** Codex's YYYY/MM/DD folders from the day before `fromMs` to `toMs` (local dates; a day's slack for time zones). */
export function dayFolders(root: string, fromMs: number, toMs: number): string[] {
  const out: string[] = [];
  const day = new Date(fromMs - 86_400_000);
  day.setHours(0, 0, 0, 0);
  for (let guard = 0; day.getTime() <= toMs + 86_400_000 && guard < 400; guard++) {
    const pad = (n: number) => String(n).padStart(2, '0');
    out.push(join(root, String(day.getFullYear()), pad(day.getMonth() + 1), pad(day.getDate())));
    day.setDate(day.getDate() + 1);
  }
  return out;
}
