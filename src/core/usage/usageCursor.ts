/**
 * Where an agent's incremental measures stand, kept between processes: a
 * one-shot `paddock list` or `show` goes on from where the previous one
 * stopped instead of reading every transcript whole and walking the worktree
 * on every run. One small file per agent in its job folder
 * (`usage-cursor.json`, docs/store.md): each transcript's identity (path,
 * device, inode, first bytes), the offset after its last complete line and
 * what its lines summed; when the worktree was last walked and what it took.
 *
 * It is a cache: read through its schema, and one that is unreadable, bad or
 * from another version is ignored (rebuilt by reading from the start). A
 * transcript it names is only ever matched against files found anew, and
 * checked against the file (JsonlTail) before its offset is trusted. Written
 * by replacing (temp file and rename), never into a job folder that is gone.
 */
import { join } from 'node:path';
import { lazily } from '../common/lazily';
import * as z from '../common/zod';
import { readSmallFile, readSmallFileSync, replaceCacheFile } from './cacheFile';

export const USAGE_CURSOR_FILE = 'usage-cursor.json';
const VERSION = 1;
/** A cursor bigger than this is not read (rebuilt instead): no reader should hold more. */
const MAX_CURSOR_BYTES = 32 * 1024 * 1024;

/** [message id, tokens in, tokens out, cost or null]. */
export type MessageEntry = [string, number, number, number | null];

const MAX_MESSAGES_TEXT = 64 * 1024 * 1024;

/**
 * A session's messages as one string, a line each: `in TAB out TAB cost TAB
 * id` (cost empty when none; the id last, so it may hold tabs). A long
 * session has tens of thousands of messages: as JSON arrays they took most of
 * a second to parse and check per 100,000 (measured), more than the reading
 * they save; one string parses at copying speed and is checked by one loop.
 * Undefined when an id holds a line break (that session is then not kept).
 */
function encodeMessages(messages: readonly MessageEntry[]): string | undefined {
  const lines: string[] = [];
  for (const [id, tokensIn, tokensOut, cost] of messages) {
    if (id.includes('\n')) return undefined;
    lines.push(`${tokensIn}\t${tokensOut}\t${cost ?? ''}\t${id}\n`);
  }
  return lines.join('');
}

const COUNT_TEXT = /^(0|[1-9]\d{0,15})$/;

/** The messages of encodeMessages' text; undefined when any line is not one. */
function decodeMessages(text: string): MessageEntry[] | undefined {
  const out: MessageEntry[] = [];
  let start = 0;
  while (start < text.length) {
    const end = text.indexOf('\n', start);
    if (end < 0) return undefined;
    const line = text.slice(start, end);
    start = end + 1;
    const t1 = line.indexOf('\t');
    const t2 = line.indexOf('\t', t1 + 1);
    const t3 = line.indexOf('\t', t2 + 1);
    if (t1 < 0 || t2 < 0 || t3 < 0) return undefined;
    const [tokensIn, tokensOut, costText, id] = [line.slice(0, t1), line.slice(t1 + 1, t2), line.slice(t2 + 1, t3), line.slice(t3 + 1)];
    if (!COUNT_TEXT.test(tokensIn) || !COUNT_TEXT.test(tokensOut) || id.length > 512) return undefined;
    const cost = costText === '' ? null : Number(costText);
    if (cost !== null && !(Number.isFinite(cost) && cost >= 0)) return undefined;
    const entry: MessageEntry = [id, Number(tokensIn), Number(tokensOut), cost];
    if (!Number.isSafeInteger(entry[1]) || !Number.isSafeInteger(entry[2])) return undefined;
    out.push(entry);
  }
  return out;
}

/** The cursor's schemas, built when a cursor is first read: a listing of agents that ended reads none. */
function buildSchemas() {
  const Count = z.number().check(z.int(), z.nonnegative());
  const Path = z.string().check(z.minLength(1), z.maxLength(4096));

  const PositionSchema = z.object({
    dev: Count,
    ino: Count,
    offset: Count,
    head: z.string().check(z.maxLength(128)),
  });

  const ClaudeStateSchema = z.object({
    kind: z.literal('claude'),
    path: Path,
    position: PositionSchema,
    /** encodeMessages' text, checked line by line when read (decodeMessages). */
    messages: z.string().check(z.maxLength(MAX_MESSAGES_TEXT)),
  });

  const CodexStateSchema = z.object({
    kind: z.literal('codex'),
    path: Path,
    position: PositionSchema,
    cwd: z.nullable(z.string().check(z.maxLength(4096))),
    latest: z.nullable(z.object({ tokensIn: Count, tokensOut: Count })),
  });

  const DiskWalkSchema = z.object({
    root: Path,
    bytes: z.nullable(Count),
    /** When the walk ended (ms since the epoch). */
    walkedAt: Count,
  });

  const UsageCursorSchema = z.object({
    version: z.literal(VERSION),
    transcripts: z.array(z.discriminatedUnion('kind', [ClaudeStateSchema, CodexStateSchema])).check(z.maxLength(100_000)),
    disk: z.nullable(DiskWalkSchema),
  });
  return { Count, Path, DiskWalkSchema, ClaudeStateSchema, CodexStateSchema, UsageCursorSchema };
}

type CursorSchemas = ReturnType<typeof buildSchemas>;

export const cursorSchemas = lazily(buildSchemas);

/** A Claude Code session's state as the reader holds it (its messages decoded). */
export type ClaudeSessionState = Omit<z.infer<CursorSchemas['ClaudeStateSchema']>, 'messages'> & { messages: MessageEntry[] };
export type CodexSessionState = z.infer<CursorSchemas['CodexStateSchema']>;
export type TranscriptState = ClaudeSessionState | CodexSessionState;
export type DiskWalk = z.infer<CursorSchemas['DiskWalkSchema']>;
export interface UsageCursor {
  version: typeof VERSION;
  transcripts: TranscriptState[];
  disk: DiskWalk | null;
}

export const newCursor = (transcripts: TranscriptState[] = [], disk: DiskWalk | null = null): UsageCursor => ({ version: VERSION, transcripts, disk });

/** One agent's cursor file in its job folder. */
export class UsageCursorFile {
  /** Where the cursor last read or written stood (see standing), to write only when something moved. */
  private lastStanding: string | undefined;

  constructor(readonly path: string) {}

  static inJobDir(jobDir: string): UsageCursorFile {
    return new UsageCursorFile(join(jobDir, USAGE_CURSOR_FILE));
  }

  /**
   * The cursor, or an empty one when there is none or it is not valid. `blocking`: with blocking calls, for a
   * one-shot command reading a thousand of them (a small file's read through the thread pool costs several times more).
   */
  async read(opts: { blocking?: boolean } = {}): Promise<UsageCursor> {
    try {
      const text = opts.blocking ? readSmallFileSync(this.path, MAX_CURSOR_BYTES) : await readSmallFile(this.path, MAX_CURSOR_BYTES);
      if (text === null) return newCursor();
      const parsed = cursorSchemas().UsageCursorSchema.safeParse(JSON.parse(text));
      if (!parsed.success) return newCursor();
      const transcripts: TranscriptState[] = [];
      for (const t of parsed.data.transcripts) {
        if (t.kind === 'codex') transcripts.push(t);
        else {
          const messages = decodeMessages(t.messages);
          if (!messages) return newCursor();
          transcripts.push({ ...t, messages });
        }
      }
      const cursor: UsageCursor = { version: VERSION, transcripts, disk: parsed.data.disk };
      this.lastStanding = standing(cursor);
      return cursor;
    } catch {
      return newCursor(); // none yet, unreadable, or not JSON: rebuilt
    }
  }

  /** Replaces the file with `cursor` when it differs from what was read or written; never fails the sample. */
  async write(cursor: UsageCursor): Promise<void> {
    const now = standing(cursor);
    if (now === this.lastStanding) return;
    const transcripts: unknown[] = [];
    for (const t of cursor.transcripts) {
      if (t.kind === 'codex') transcripts.push(t);
      else {
        const messages = encodeMessages(t.messages);
        if (messages !== undefined) transcripts.push({ ...t, messages }); // else read again from the start next time
      }
    }
    const text = JSON.stringify({ ...cursor, transcripts });
    if (await replaceCacheFile(this.path, text)) this.lastStanding = now;
  }
}

/**
 * What a cursor's content follows from: each file's identity and offset (its
 * sums change only with them: lines read, or the file read again from its
 * start), a Codex session's folder, and the last walk. Cheap next to the sums.
 */
function standing(cursor: UsageCursor): string {
  return JSON.stringify([cursor.transcripts.map((t) => [t.path, t.position, t.kind === 'codex' ? t.cwd : null]), cursor.disk]);
}
