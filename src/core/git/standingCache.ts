/**
 * Standings of many agents, kept between refreshes. A refresh first reads each
 * agent's key — its HEAD, its base's commit, its index file's stat and its
 * record's last change — from git's files and a stat (plus git once per base),
 * and recomputes only the agents whose key moved: their committed figures with
 * a few git processes per repository and base, their worktrees' statuses a few
 * at a time, so fifty agents never start fifty gits at once. Readers (a tree
 * render) get the cached value synchronously and never cause git to run.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { mapConcurrently } from '../common/limiter';
import type { JobRecord } from '../store/schema';
import { computeStanding, computeStandings, resolveBase, Standing, StandingRequest, worktreeHead } from './standing';
import { worktreeGitEnv } from './worktreeGitEnv';
import { branchTip } from './checkout';

/** Agents whose key is checked (and standing recomputed) at once. */
export const STANDING_CONCURRENCY = 4;

export interface StandingEntry {
  readonly key: string;
  readonly standing: Standing | null;
  /** The worktree's own git directory (where its HEAD and index live), to watch. */
  readonly gitDir?: string;
  /** Why it could not be computed (worktree gone, base unknown), for the log. */
  readonly error?: string;
}

/** The part of a record whose change may mean the worktree changed (the agent went on, ended, was landed). */
export function recordEpoch(job: JobRecord): string {
  const l = job.lifecycle;
  return [l.state, l.generation, l.lastActivityAt ?? '', l.endedAt ?? '', job.landing?.at ?? ''].join('|');
}

/** Agents with a worktree whose figures mean something. */
export function hasStanding(job: JobRecord): boolean {
  return job.worktree !== null && job.base !== null && job.cleanup === null;
}

export class StandingCache {
  private readonly entries = new Map<string, StandingEntry>();
  /** Computations of the figures (not key checks): tests and the bench count them. */
  computations = 0;

  get(id: string): Standing | undefined {
    return this.entries.get(id)?.standing ?? undefined;
  }

  entry(id: string): StandingEntry | undefined {
    return this.entries.get(id);
  }

  forget(id: string): void {
    this.entries.delete(id);
  }

  /**
   * Brings the given agents' standings up to date; returns the ids whose
   * standing changed. `force`: recompute these even when their key did not
   * move (a running agent edits files without touching its index).
   */
  async refresh(jobs: readonly JobRecord[], opts: { force?: ReadonlySet<string> } = {}): Promise<string[]> {
    const changed: string[] = [];
    for (const job of jobs) {
      if (!hasStanding(job) && this.entries.delete(job.id)) changed.push(job.id);
    }
    const tracked = jobs.filter(hasStanding);
    const bases = new Map<string, Promise<{ tip: string; name: string }>>();
    const baseOf = (job: JobRecord) => {
      const k = `${job.repo}\0${job.base}`;
      let b = bases.get(k);
      if (!b) {
        b = resolveBase(job.repo, job.base!);
        bases.set(k, b);
      }
      return b;
    };
    const record = (job: JobRecord, next: StandingEntry) => {
      const before = this.entries.get(job.id);
      this.entries.set(job.id, next);
      if (JSON.stringify(before?.standing ?? null) !== JSON.stringify(next.standing)) changed.push(job.id);
    };
    const failed = (job: JobRecord, err: unknown): StandingEntry => ({ key: `error\0${recordEpoch(job)}`, standing: null, error: (err as Error).message });
    // First every key (files and a stat; git only for an unusual layout), then the agents whose key moved, in one batch per repository and base.
    const stale = new Map<string, { repo: string; jobs: { job: JobRecord; key: string; gitDir: string; request: StandingRequest }[] }>();
    await mapConcurrently(tracked, STANDING_CONCURRENCY, async (job) => {
      try {
        // A worktree whose link the agent cut is read through the repository's registration of it (bug 156).
        const env = await worktreeGitEnv(job.repo, job.worktree!, job.branch);
        // The agent's branch too: merged is said of it only while HEAD is on it (bug 186). A look at it that fails is this
        // agent's failed standing, as any other look here: judged from HEAD instead, a failed look could say "merged".
        const [{ head, gitDir }, base, onBranch] = await Promise.all([worktreeHead(job.worktree!, env), baseOf(job), job.branch ? branchTip(job.repo, job.branch) : undefined]);
        const index = await fs.stat(path.join(gitDir, 'index')).then((s) => `${s.ino}:${s.size}:${s.mtimeMs}`, () => 'none');
        const key = [head, base.tip, base.name, index, recordEpoch(job), onBranch ?? 'none'].join('\0');
        if (this.entries.get(job.id)?.key === key && !opts.force?.has(job.id)) return;
        const tips = { head, baseTip: base.tip, baseName: base.name, startedAt: job.baseSha, branchTip: onBranch };
        if (env.GIT_DIR !== undefined) {
          // Not in the batch: its status there would run git wherever the worktree's `.git` leads.
          this.computations++;
          record(job, { key, standing: await computeStanding(job.worktree!, tips, { repo: job.repo, env }), gitDir });
          return;
        }
        const batchKey = `${job.repo}\0${base.tip}`;
        const batch = stale.get(batchKey) ?? { repo: job.repo, jobs: [] };
        stale.set(batchKey, batch);
        batch.jobs.push({ job, key, gitDir, request: { worktree: job.worktree!, tips } });
      } catch (err) {
        record(job, failed(job, err));
      }
    });
    for (const { repo, jobs: batch } of stale.values()) {
      this.computations += batch.length;
      const results = await computeStandings(repo, batch.map((b) => b.request), STANDING_CONCURRENCY);
      batch.forEach(({ job, key, gitDir }, i) => {
        const r = results[i];
        record(job, r.status === 'fulfilled' ? { key, standing: r.value, gitDir } : failed(job, r.reason));
      });
    }
    return changed;
  }
}
