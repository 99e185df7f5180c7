/**
 * The figures of agents that ended, kept apart from their cursors. Once an
 * agent's end is settled — its processes gone, nothing left running, no
 * cleanup begun, the end half a minute old (a worker that stopped its agent
 * without seeing it exit may still write output for a moment before it exits)
 * — its output's size and its tokens no longer move: the first sample after
 * that takes them as usual (cursor, output folder, transcripts) and they are
 * kept here with the end they belong to. Only the worktree's size still
 * changes, and it is walked again at most every 30 s; when it was last walked
 * is kept here too. So a `paddock list` of a thousand ended agents reads one
 * file for all their figures, where it read each one's cursor and listed each
 * one's output folder (1,000 agents: ~90 ms of a ~300-ms listing, measured).
 *
 * The window keeps the entries in memory; a one-shot process (the CLI) in one
 * store file, `usage-ended.json` (docs/store.md). Like the cursors, it is a
 * cache: read through its schema, a file that is missing, unreadable, too big
 * or failing it is ignored (every ended agent is then sampled the usual way and
 * the file written anew), written only when it changed by a temp file renamed
 * over it, without a lock (two writers each leave a valid file; an entry lost
 * is taken again). An entry is used only while the record names the same end
 * (settledEndOf): a retried agent that ended again, and one restored after a
 * cleanup (its evidence captured since), are sampled again.
 */
import { readSmallFile, readSmallFileSync, replaceCacheFile } from './cacheFile';
import { lazily } from '../common/lazily';
import * as z from '../common/zod';
import { accepted, fail, int, intOrNull, keys, nullable, numOrNull, obj, type Obj, str, strMatch } from '../store/fastCheck';
import { isTerminalState, JOB_ID_PATTERN, type JobRecord } from '../store/schema';
import { cursorSchemas, type DiskWalk } from './usageCursor';

export const ENDED_FIGURES_FILE = 'usage-ended.json';
const VERSION = 1;
/** Far more than a store holds (an entry is ~200 bytes); a bigger file is not read. */
const MAX_FILE_BYTES = 16 * 1024 * 1024;
/** How old an agent's end must be before its figures are taken as final: a worker lingers ≤ 2 s after it. */
export const END_SETTLED_MS = 30_000;
const MAX_END_TEXT = 200;

/**
 * The end an agent's kept figures belong to, once they can no longer move
 * (see above); null while they still may. Its generation, end time and the
 * capture time of its evidence: a restored agent's earlier entry no longer
 * matches (a cleanup's teardown may have written to its output log).
 */
export function settledEndOf(job: JobRecord, now: number): string | null {
  const { state, endedAt, generation } = job.lifecycle;
  if (!isTerminalState(state) || endedAt === null || job.cleanup !== null || (job.leftovers?.length ?? 0) > 0) return null;
  // A time that does not parse, or one in the future, is not settled.
  if (!(now - Date.parse(endedAt) >= END_SETTLED_MS)) return null;
  return `${generation} ${endedAt} ${job.evidence?.capturedAt ?? '-'}`;
}

/** The file's schemas, built only when the fast check below does not accept a file. */
function buildSchemas() {
  const { Count, DiskWalkSchema } = cursorSchemas();
  const EndedEntrySchema = z.object({
    /** The end the figures belong to (settledEndOf). */
    end: z.string().check(z.minLength(1), z.maxLength(MAX_END_TEXT)),
    outputBytes: z.nullable(Count),
    tokensIn: z.nullable(Count),
    tokensOut: z.nullable(Count),
    costUsd: z.nullable(z.number().check(z.nonnegative())),
    disk: z.nullable(DiskWalkSchema),
  });

  const EndedFiguresSchema = z.object({
    version: z.literal(VERSION),
    agents: z.record(z.string().check(z.regex(JOB_ID_PATTERN)), EndedEntrySchema),
  });
  return { EndedEntrySchema, EndedFiguresSchema };
}

type EndedSchemas = ReturnType<typeof buildSchemas>;

export const endedFiguresSchemas = lazily(buildSchemas);

export type EndedEntry = z.infer<EndedSchemas['EndedEntrySchema']>;
type EndedFiguresData = z.infer<EndedSchemas['EndedFiguresSchema']>;

/*
 * The same checks as EndedFiguresSchema, by hand (the store's fastCheck.ts, as for job records): zod took
 * 12–14 ms of a `paddock list` over a thousand entries. It only ever accepts; what it does not accept
 * goes to zod, which decides. test/unit/core/usage/endedFigures.test.ts holds the two to the same answers.
 */
const WALK_KEYS = keys('root', 'bytes', 'walkedAt');
const ENTRY_KEYS = keys('end', 'outputBytes', 'tokensIn', 'tokensOut', 'costUsd', 'disk');
const FILE_KEYS = keys('version', 'agents');

function walk(v: unknown): Obj {
  const i = obj(v, WALK_KEYS);
  str(i.root, 4096, 1);
  intOrNull(i.bytes, 0);
  int(i.walkedAt, 0);
  return i;
}

function entry(v: unknown): Obj {
  const i = obj(v, ENTRY_KEYS);
  str(i.end, MAX_END_TEXT, 1);
  intOrNull(i.outputBytes, 0);
  intOrNull(i.tokensIn, 0);
  intOrNull(i.tokensOut, 0);
  numOrNull(i.costUsd, 0);
  nullable(i.disk, walk);
  return i;
}

function endedFiguresFile(v: unknown): Obj {
  const i = obj(v, FILE_KEYS);
  if (i.version !== VERSION) fail();
  const agents = i.agents;
  if (typeof agents !== 'object' || agents === null || Array.isArray(agents)) fail();
  for (const id in agents) {
    strMatch(id, JOB_ID_PATTERN);
    entry((agents as Obj)[id]);
  }
  return i;
}

/** The file's content when the hand-written check accepts it; undefined when zod must decide. */
export function checkEndedFigures(raw: unknown): EndedFiguresData | undefined {
  return accepted(raw, endedFiguresFile) as EndedFiguresData | undefined;
}

/** The file's content when it passes EndedFiguresSchema (the fast check first); undefined when it does not. */
export function parseEndedFigures(raw: unknown): EndedFiguresData | undefined {
  const fast = checkEndedFigures(raw);
  if (fast) return fast;
  const parsed = endedFiguresSchemas().EndedFiguresSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

export interface EndedFiguresFileOptions {
  path: string;
  /** Whether the agent's job folder still exists: an entry of an agent that was forgotten is dropped. */
  jobExists: (id: string) => boolean;
  /** Read with a blocking call (a one-shot command's choice, never a window's). */
  blocking?: boolean;
}

export class EndedFigures {
  private readonly entries = new Map<string, EndedEntry>();
  private loading: Promise<void> | undefined;
  private changed = false;

  /** Without a file: kept in memory for the life of this object (the window's sampler). */
  constructor(private readonly file?: EndedFiguresFileOptions) {}

  /** Reads the file, once; resolves when the entries are there. */
  load(): Promise<void> {
    this.loading ??= this.file ? this.readFile(this.file) : Promise.resolve();
    return this.loading;
  }

  /** The entry kept for this end of the agent (settledEndOf); undefined when there is none for it. */
  of(id: string, end: string): EndedEntry | undefined {
    const entry = this.entries.get(id);
    return entry !== undefined && entry.end === end ? entry : undefined;
  }

  set(id: string, entry: EndedEntry): void {
    const before = this.entries.get(id);
    if (before !== undefined && sameEntry(before, entry)) return;
    this.entries.set(id, entry);
    this.changed = true;
  }

  /** Updates the entry's last walk of the worktree. */
  noteWalk(id: string, disk: DiskWalk | null): void {
    const entry = this.entries.get(id);
    if (entry) this.set(id, { ...entry, disk });
  }

  /**
   * Keeps the entries of `ended` (the agents sampled with a settled end just
   * now); of the others, drops those of agents that were `given` (retried,
   * being cleaned up or cleaned up, restored) and, for agents not given
   * (another command sampled only some), those whose job folder is gone — or
   * all of them when kept in memory.
   */
  retain(ended: ReadonlySet<string>, given: ReadonlySet<string>): void {
    for (const id of this.entries.keys()) {
      if (ended.has(id)) continue;
      if (given.has(id) || !this.file || !this.file.jobExists(id)) {
        this.entries.delete(id);
        this.changed = true;
      }
    }
  }

  /** Writes the file when an entry changed; never fails the sample. */
  async save(): Promise<void> {
    if (!this.file || !this.changed) return;
    this.changed = false;
    const text = JSON.stringify({ version: VERSION, agents: Object.fromEntries(this.entries) });
    await replaceCacheFile(this.file.path, text);
  }

  private async readFile(file: EndedFiguresFileOptions): Promise<void> {
    let text: string | null;
    try {
      text = file.blocking ? readSmallFileSync(file.path, MAX_FILE_BYTES) : await readSmallFile(file.path, MAX_FILE_BYTES);
    } catch {
      return; // none yet, or unreadable: rebuilt
    }
    if (text === null) return;
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return;
    }
    const data = parseEndedFigures(raw);
    if (!data) return;
    for (const [id, kept] of Object.entries(data.agents)) this.entries.set(id, kept);
  }
}

function sameEntry(a: EndedEntry, b: EndedEntry): boolean {
  return (
    a.end === b.end &&
    a.outputBytes === b.outputBytes &&
    a.tokensIn === b.tokensIn &&
    a.tokensOut === b.tokensOut &&
    a.costUsd === b.costUsd &&
    a.disk?.root === b.disk?.root &&
    a.disk?.bytes === b.disk?.bytes &&
    a.disk?.walkedAt === b.disk?.walkedAt
  );
}
