/**
 * Stage 2 of a cleanup, evidence before destruction: the whole worktree to a
 * snapshot ref, a verified patch, an archive and an inventory (captureEvidence),
 * recorded on the job before anything is removed. What the capture saw is
 * handed back for the removal's check that nothing changed since.
 */
import { existsSync } from 'node:fs';
import { describeError, PaddockError } from '../common/errors';
import { printable } from '../common/printable';
import { captureEvidence, CONSENT_NEEDED } from '../git';
import type { CaptureStamp } from '../git/changedSince';
import { isGitless } from '../git/remnant';
import { ensureLinked } from '../git/worktreeLink';
import type { JobStore } from '../store';
import type { Cleanup, JobRecord } from '../store/schema';
import { checkRemnant, StageFailure } from './cleanupRemoval';

/** What the stage needs of the cleanup that runs it: the store, and its phase and timeline writes. */
export interface CaptureStageDeps {
  store: JobStore;
  setPhase(id: string, phase: Cleanup['phase']): Promise<JobRecord>;
  timeline(job: JobRecord, type: string, message: string): Promise<void>;
  log?(message: string): void;
}

export interface CaptureStageResult {
  job: JobRecord;
  /** What this capture saw; absent when nothing was captured (no worktree, or already in the evidence). */
  stamp?: CaptureStamp;
}

/**
 * The agent may have cut its worktree's link to the repository (`rm .git`, or `git init` in its
 * root): git would then capture nothing, or another repository. A missing or broken link is
 * written again from the repository's record of the worktree; a repository of the agent's own
 * there needs the person.
 */
async function checkLink(repo: string, worktree: string, branch: string | null, notes: string[]): Promise<void> {
  const check = await ensureLinked(repo, worktree, branch);
  if (check.ok) {
    if (check.note) notes.push(check.note);
    return;
  }
  const next = check.own ? ' — move that .git aside (the capture keeps it as files) and retry the cleanup' : '';
  throw new StageFailure('capturing', `${check.problem}; nothing was removed${next}`);
}

/** Repositories with no checkout kept from the worktree's git dir (a submodule after `deinit`): said, since `git status` never shows them. */
function gitDirsKept(names: readonly string[] | undefined, lead: string): string {
  if (!names?.length) return '';
  return `${lead}archived ${names.length} git dir(s) with no checkout from the worktree's git dir (${names.slice(0, 3).map(printable).join(', ')})`;
}

export async function captureStage(deps: CaptureStageDeps, job: JobRecord, notes: string[]): Promise<CaptureStageResult> {
  const id = job.id;
  job = await deps.setPhase(id, 'capturing');
  if (job.worktree === null || !job.cleanup?.remaining.includes('worktree')) return { job };
  if (!existsSync(job.worktree)) {
    notes.push('worktree was already gone, nothing to capture');
    return { job };
  }
  if (isGitless(job.worktree) && job.evidence?.inventory) {
    // A removal cut short after git dropped .git: what is left must already be in the evidence.
    await checkRemnant(job, 'capturing');
    notes.push('what was left of a half-removed worktree is already in the evidence');
    return { job };
  }
  await checkLink(job.repo, job.worktree, job.branch, notes);
  if (job.baseSha === null) throw new StageFailure('capturing', 'the agent has no base commit to capture against');
  const c = job.cleanup;
  let evidence;
  try {
    evidence = await captureEvidence({
      repo: job.repo,
      worktree: job.worktree,
      jobId: id,
      patchPath: deps.store.patchPath(id),
      baseSha: job.baseSha,
      branch: job.branch,
      regenerable: c.regenerable,
      archiveLimitBytes: c.archiveLimitBytes,
      dropUnarchivable: c.dropUnarchivable === true,
      blockingFs: deps.store.blockingReads,
      log: deps.log ? (m) => deps.log?.(`cleanup of ${id}: ${m}`) : undefined,
    });
  } catch (err) {
    const consent = err instanceof PaddockError && err.code === CONSENT_NEEDED;
    const why = describeError(err);
    // The capture's own messages already say so ("Could not capture the worktree …: …"): once is enough.
    const said = consent ? why : /^could not capture /i.test(why) ? `c${why.slice(1)}` : `could not capture the worktree: ${why}`;
    throw new StageFailure('capturing', said, [], false, consent);
  }
  job = await deps.store.update(id, (j) => ({
    ...j,
    evidence: {
      patch: evidence.patch,
      snapshotRef: evidence.snapshotRef,
      headSha: evidence.headSha,
      capturedAt: new Date().toISOString(),
      snapshotSha: evidence.snapshotSha,
      archive: evidence.archive,
      inventory: evidence.inventory,
      summary: evidence.summary,
    },
  }));
  const s = evidence.summary;
  await deps.timeline(
    job,
    'cleanup-captured',
    `saved ${evidence.fileCount} changed file(s) to ${evidence.snapshotRef}; archived ${s.archived.files} file(s) and ${s.emptyDirs} empty folder(s); ` +
      `dropped ${s.regenerable.files} regenerable file(s)${s.lostCount ? `; lost ${s.lostCount} path(s) as agreed` : ''}${gitDirsKept(s.keptGitDirs, '; ')}`,
  );
  notes.push(`work saved to ${evidence.snapshotRef}`);
  // A file git would not store is archived too, but it is neither ignored nor nested: it is said apart.
  const unstorable = s.unstorable ?? 0;
  if (s.archived.files - unstorable + s.emptyDirs > 0) notes.push(`${s.archived.files - unstorable} ignored or nested file(s) and ${s.emptyDirs} empty folder(s) archived`);
  if (unstorable > 0) notes.push(`${unstorable} file(s) git would not store (a filter or encoding that failed on them, a name it refuses) archived as they are on disk`);
  if (s.keptGitDirs?.length) notes.push(gitDirsKept(s.keptGitDirs, ''));
  // A worktree of another repository: the person learns where its commits went and that it is still registered there.
  for (const words of s.foreignWorktrees ?? []) notes.push(printable(words));
  if (s.regenerable.files > 0) notes.push(`${s.regenerable.files} regenerable file(s) dropped (${s.regenerable.roots.slice(0, 3).map(printable).join(', ')})`);
  if (s.lostCount > 0) notes.push(`${s.lostCount} path(s) dropped as agreed: ${s.lost.slice(0, 3).map((l) => printable(l.path)).join(', ')}`);
  return { job, stamp: evidence.stamp };
}
