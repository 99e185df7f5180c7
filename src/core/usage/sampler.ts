/**
 * The per-agent figures (issue 13), sampled on demand: a view or a CLI
 * command asks, nothing runs on its own. One sample takes one snapshot of
 * every process (through the process backend: /proc, or ps), gives each agent
 * its session's and its marked processes' memory and CPU, the size of its
 * output log, its worktree's size on disk (at most every 30 s per agent,
 * incrementally) and the tokens from its transcripts (incrementally). A
 * sampler that lives long (the window's) keeps where it stands in memory; a
 * one-shot one (the CLI's) is given each agent's cursor file (usageCursor.ts)
 * and goes on from, and leaves, where the previous process stood: the 30 s
 * between walks hold across processes, and a transcript is never read whole
 * again.
 *
 * Everything here is asynchronous and done a few system calls at a time: the
 * extension host samples in its own process, and its event loop is never held
 * by a walk of /proc or of a worktree (see docs/architecture.md, "Per-agent figures").
 */
import { promises as fsp, readdirSync, statSync } from 'node:fs';
import { mapConcurrently } from '../common/limiter';
import { join } from 'node:path';
import { processBackend } from '../proc/backend';
import type { ProcessUsage, ProcessUsageSnapshot } from '../proc/processUsage';
import { isTerminalState, type JobRecord, type Usage } from '../store/schema';
import { AGENT_MARKER_ENV } from '../worker/agentMarker';
import { processesByAgent } from './agentProcesses';
import { CpuTracker, type CpuInterval } from './cpuTracker';
import { hasUsageToSample, hasWorktreeOnDisk, isLiveAgent } from './currentUsage';
import { DiskUsage } from './diskUsage';
import { EndedFigures, settledEndOf, type EndedEntry } from './endedFigures';
import { TranscriptReader, transcriptKindOf } from './transcripts';
import { newCursor, UsageCursorFile, type DiskWalk } from './usageCursor';

/** A worktree is measured at most this often per agent. */
export const DISK_INTERVAL_MS = 30_000;
/** Agents whose figures are gathered side by side. */
const SAMPLED_AT_ONCE = 16;
/** Without a snapshot this recent, a sample first takes one and waits this long (CPU needs an interval). */
export const CPU_WARMUP_MS = 500;
const STALE_BASELINE_MS = 60_000;

export interface UsageSamplerOptions {
  /** The folder of an agent's output log segments. */
  outputDir: (id: string) => string;
  /** Where transcripts are looked for (HOME, CLAUDE_CONFIG_DIR, CODEX_HOME); default process.env. */
  env?: NodeJS.ProcessEnv;
  diskIntervalMs?: number;
  /** See CPU_WARMUP_MS. */
  cpuWarmupMs?: number;
  /** Where an agent's cursor is kept between processes (its job folder); none: kept in memory only. */
  cursorDir?: (id: string) => string;
  /** Small reads (cursors, output sizes) with blocking calls: a one-shot command's choice, never a window's. */
  blocking?: boolean;
  /** Where the ended agents' figures are kept between processes (endedFigures.ts); none: in memory. */
  endedFigures?: EndedFigures;
}

interface DiskState {
  /** Made at the first walk in this process: most agents' last walk (kept, or in a cursor) still stands. */
  walker?: DiskUsage;
  /** The last walk (or the one an earlier process left in the cursor); null before any. */
  last: DiskWalk | null;
}

export class UsageSampler {
  private readonly cpu = new CpuTracker();
  private readonly disks = new Map<string, DiskState>();
  /** Each agent's cursor file, once read (see cursorDir). */
  private readonly cursors = new Map<string, UsageCursorFile>();
  private readonly transcripts: TranscriptReader;
  private readonly diskIntervalMs: number;
  private readonly ended: EndedFigures;

  constructor(private readonly opts: UsageSamplerOptions) {
    this.transcripts = new TranscriptReader(opts.env ?? process.env);
    this.diskIntervalMs = opts.diskIntervalMs ?? DISK_INTERVAL_MS;
    this.ended = opts.endedFigures ?? new EndedFigures();
  }

  /** Takes a process snapshot only, so that the next sample measures CPU from now. */
  async prime(jobs: readonly JobRecord[] = []): Promise<void> {
    const { snapshot, members } = await this.observe(jobs.filter(isLiveAgent));
    this.cpu.advance(snapshot, members);
  }

  /** Figures for each given agent that has any (see hasUsageToSample), by id. */
  async sample(jobs: readonly JobRecord[]): Promise<Map<string, Usage>> {
    const wanted = jobs.filter(hasUsageToSample);
    const out = new Map<string, Usage>();
    if (wanted.length === 0) return out;
    const live = wanted.filter(isLiveAgent);
    let interval: CpuInterval | undefined;
    let members = new Map<string, ProcessUsage[]>();
    if (live.length > 0) {
      // The first sample (a one-shot CLI command, a view just shown) has no interval yet: make a short one.
      const last = this.cpu.lastAt;
      if (last === undefined || Date.now() - last > STALE_BASELINE_MS) {
        await this.prime(live);
        await new Promise((resolve) => setTimeout(resolve, this.opts.cpuWarmupMs ?? CPU_WARMUP_MS));
      }
      const observed = await this.observe(live);
      members = observed.members;
      interval = this.cpu.advance(observed.snapshot, members);
    }
    const now = Date.now();
    const sampledAt = new Date(now).toISOString();
    // Loaded whenever an agent that ended is given, settled or not: an entry it no longer matches goes.
    if (jobs.some((j) => isTerminalState(j.lifecycle.state))) await this.ended.load();
    // An agent whose end is settled and was sampled since has its figures at hand: unless its worktree
    // is due for a walk, nothing to wait for (a thousand of them in `paddock list`, without a promise each).
    const settled = new Set<string>();
    const toMeasure: { job: JobRecord; end: string | null; kept: EndedEntry | undefined }[] = [];
    for (const job of wanted) {
      const end = settledEndOf(job, now);
      if (end !== null) settled.add(job.id);
      const kept = end === null ? undefined : this.ended.of(job.id, end);
      if (kept?.disk && !this.disks.has(job.id)) this.disks.set(job.id, { last: kept.disk });
      const walk = kept ? this.standingWalk(job, now) : undefined;
      if (kept && walk) out.set(job.id, endedUsage(kept, walk.bytes, sampledAt));
      else toMeasure.push({ job, end, kept });
    }
    // A few agents at a time: each is a handful of small file reads (its cursor, its output's size), which
    // one after another for a thousand agents (`paddock list`) spent most of their time waiting.
    await mapConcurrently(toMeasure, SAMPLED_AT_ONCE, async ({ job, end, kept }) => {
      if (kept) {
        const diskBytes = await this.diskOf(job, now);
        this.ended.noteWalk(job.id, this.disks.get(job.id)?.last ?? null);
        out.set(job.id, endedUsage(kept, diskBytes, sampledAt));
        return;
      }
      const cursor = await this.cursorOf(job.id);
      const processes = members.get(job.id);
      const [tokens, diskBytes, output] = await Promise.all([this.tokensOf(job), this.diskOf(job, now), outputBytes(this.opts.outputDir(job.id), this.opts.blocking === true)]);
      const usage: Usage = {
        cpuPercent: processes && interval ? interval.percentOf(job.id) : null,
        rssBytes: processes ? processes.reduce((sum, p) => sum + p.rssBytes, 0) : null,
        diskBytes,
        outputBytes: output,
        tokensIn: tokens?.tokensIn ?? null,
        tokensOut: tokens?.tokensOut ?? null,
        costUsd: tokens?.costUsd ?? null,
        sampledAt,
      };
      out.set(job.id, usage);
      await cursor?.write(newCursor(this.transcripts.statesOf(job.id), this.disks.get(job.id)?.last ?? null));
      // Sampled after its end settled: all but the worktree's size is final (endedFigures.ts).
      if (end !== null) {
        const { outputBytes, tokensIn, tokensOut } = usage;
        this.ended.set(job.id, { end, outputBytes, tokensIn, tokensOut, costUsd: usage.costUsd ?? null, disk: this.disks.get(job.id)?.last ?? null });
      }
    });
    const wantedIds = new Set(wanted.map((j) => j.id));
    for (const id of this.disks.keys()) if (!wantedIds.has(id)) this.disks.delete(id);
    this.ended.retain(settled, new Set(jobs.map((j) => j.id)));
    await this.ended.save();
    return out;
  }

  /** One snapshot of the live agents' processes, and which are whose. */
  private async observe(live: readonly JobRecord[]): Promise<{ snapshot: ProcessUsageSnapshot; members: Map<string, ProcessUsage[]> }> {
    const sessions = live.flatMap((j) => (j.lifecycle.pid !== null ? [j.lifecycle.pid] : []));
    const snapshot = await processBackend().usageSnapshot(AGENT_MARKER_ENV, sessions);
    const members = processesByAgent(
      snapshot.processes,
      live.map((j) => ({ id: j.id, sessionId: j.lifecycle.pid })),
    );
    return { snapshot, members };
  }

  /**
   * The worktree's size, measured again only when the last measure is older
   * than the interval; a one-shot sampler (the CLI) starts from the figure the
   * record holds when that is recent enough.
   */
  private async diskOf(job: JobRecord, now: number): Promise<number | null> {
    if (!hasWorktreeOnDisk(job) || job.worktree === null) return null;
    const standing = this.standingWalk(job, now);
    if (standing) return standing.bytes;
    let state = this.disks.get(job.id);
    if (!state) this.disks.set(job.id, (state = { last: null }));
    state.walker ??= new DiskUsage();
    const bytes = await state.walker.measure(job.worktree);
    state.last = { root: job.worktree, bytes, walkedAt: Date.now() };
    return bytes;
  }

  /** The last walk of the agent's worktree while it stands: of this worktree, within the interval (a clock that went back makes it due). */
  private standingWalk(job: JobRecord, now: number): DiskWalk | undefined {
    const last = this.disks.get(job.id)?.last ?? null;
    return last !== null && last.root === job.worktree && last.walkedAt <= now && now - last.walkedAt < this.diskIntervalMs ? last : undefined;
  }

  /** The agent's cursor file, read the first time the agent is sampled (it seeds the transcripts and the last walk). */
  private async cursorOf(id: string): Promise<UsageCursorFile | undefined> {
    if (!this.opts.cursorDir) return undefined;
    let file = this.cursors.get(id);
    if (!file) {
      file = UsageCursorFile.inJobDir(this.opts.cursorDir(id));
      this.cursors.set(id, file);
      const cursor = await file.read({ blocking: this.opts.blocking });
      this.transcripts.seed(cursor.transcripts);
      if (cursor.disk && !this.disks.has(id)) this.disks.set(id, { last: cursor.disk });
    }
    return file;
  }

  private async tokensOf(job: JobRecord) {
    const kind = transcriptKindOf(job.command);
    if (!kind) return null;
    return this.transcripts.totalsOf({
      id: job.id,
      kind,
      cwd: job.cwd,
      createdAtMs: Date.parse(job.createdAt),
      ownFolder: job.worktree !== null && job.cwd === job.worktree,
    });
  }
}

/** An ended agent's figures: those kept at its end, with its worktree's size now. */
function endedUsage(kept: EndedEntry, diskBytes: number | null, sampledAt: string): Usage {
  const { outputBytes, tokensIn, tokensOut, costUsd } = kept;
  return { cpuPercent: null, rssBytes: null, diskBytes, outputBytes, tokensIn, tokensOut, costUsd, sampledAt };
}

/** The output log's size: the sum of its segment files (it is capped, so this is what is kept). */
async function outputBytes(dir: string, blocking: boolean): Promise<number | null> {
  let names: string[];
  try {
    names = blocking ? readdirSync(dir) : await fsp.readdir(dir);
  } catch {
    return null;
  }
  let total = 0;
  for (const name of names) {
    try {
      total += (blocking ? statSync(join(dir, name)) : await fsp.stat(join(dir, name))).size;
    } catch {
      // dropped by the writer meanwhile
    }
  }
  return total;
}
