/**
 * Launch and undo: the worktree (first generation) and the worker of a job the
 * scheduler has moved to `starting`. A launch that fails is recorded `failed` and
 * undone — the worktree and branch it made removed — only over nothing but its own
 * files and only while the record is still its own (undoLaunch). A first
 * generation's worker is spawned gated, before its worktree (launchGate.ts).
 */
import { existsSync } from 'node:fs';
import { settle, startEarly } from '../common/early';
import { describeError, failure } from '../common/errors';
import { addWorktree, branchTip, removeWorktree, runGit } from '../git';
import { assertRunnable } from '../profiles';
import { checkRuntimeDir, runtimeDirFor, socketPathFor } from '../protocol/runtimeDir';
import { openRequestEnv, removeRequestEnv } from '../coordinator/requestEnv';
import type { OperationContext } from '../operations/context';
import { failJob } from '../operations/failJob';
import { runInWorktreeProblem } from '../operations/runInWorktree';
import { describeWorktreeFiles, placeWorktreeFiles, planWorktreeFiles, type WorktreeFilesPlan } from '../repoConfig/worktreeFiles';
import type { JobRecord } from '../store';
import { spawnWorker, type SpawnedWorker } from '../worker/spawn';
import { keptWorktreeWords } from '../store/keptWorktree';
import { launchWorktreeTouched } from './launchWorktree';
import { waitForJob } from './waitForJob';

export interface WorkerRuntime {
  /** The worker bundle (dist/worker.js). */
  workerScript: string;
  execPath?: string;
  nodePtyPath?: string;
  /** How long a launch waits for the spawned worker to take its job over. */
  launchWaitMs: number;
}

export async function launchJob(ctx: OperationContext, runtime: WorkerRuntime, id: string): Promise<void> {
  const { store } = ctx;
  const job = await store.read(id);
  let createdWorktree = false;
  let worker: SpawnedWorker | undefined;
  try {
    if (job.worktree === null || job.branch === null || job.baseSha === null) {
      // Launched while queued without a worktree: its operation lock was free, so the start preparing it died.
      throw failure('the process starting it stopped before it assigned a worktree');
    }
    // The environment of the request that created this execution, never this launcher's own.
    const env = openRequestEnv(store.jobDir(id), id, checkRuntimeDir(runtimeDirFor(ctx.env)));
    // Its worker's socket must fit, or its claim fails on the path, said only as a worker that exited (bug 175).
    socketPathFor(id, job.lifecycle.generation, env);
    const spawnIt = (gated: boolean) =>
      spawnWorker({
        store,
        home: store.home,
        jobId: id,
        generation: job.lifecycle.generation,
        workerScript: runtime.workerScript,
        execPath: runtime.execPath,
        nodePtyPath: runtime.nodePtyPath,
        env,
        gated,
      });
    if (job.lifecycle.generation === 1 && !existsSync(job.worktree)) {
      // The worker boots, and the files to copy in are listed (git reads only the main worktree), while git checks the files out.
      // The worker starts nothing until `release(true)`.
      // Awaited after the worktree add: git's own failure is told first.
      const listing = startEarly(listWorktreeFiles(job));
      // git first (its checkout is the long part), the worker as soon as git runs: spawning a process costs the
      // event loop ~5 ms, which git's start need not wait for. A refusal before git ran needs no worker.
      let booting: Promise<PromiseSettledResult<SpawnedWorker>> | undefined;
      const bootWorker = () => (booting ??= settle(spawnIt(true)));
      const added = await settle(addWorktree(job.repo, { path: job.worktree, branch: job.branch, baseSha: job.baseSha, whileCheckingOut: bootWorker }));
      const spawned = added.status === 'fulfilled' ? await bootWorker() : await booting;
      if (spawned?.status === 'fulfilled') worker = spawned.value;
      createdWorktree = added.status === 'fulfilled';
      if (added.status === 'rejected') throw added.reason;
      if (spawned!.status === 'rejected') throw spawned!.reason;
      await bringFiles(ctx, job, await listing);
      assertRunnable(job.command[0], env, job.worktree);
      worker!.release(true);
    } else {
      // A retry queued while its worktree was still sound: judged again now, right before the agent runs there.
      const worktreeProblem = await runInWorktreeProblem(job);
      if (worktreeProblem) throw failure(worktreeProblem);
      assertRunnable(job.command[0], env, job.worktree);
      worker = await spawnIt(false);
    }
  } catch (err) {
    try {
      await undoLaunch(ctx, job, createdWorktree, describeError(err));
    } finally {
      // After the undo recorded the real reason: a reader seeing the gated worker exit first would call it a crash.
      worker?.release(false);
    }
    return;
  }
  // Until the worker has started the agent, begun its setup (which may take minutes), or the job ended.
  const settled = await waitForJob(store, id, (j) => j.lifecycle.state !== 'starting' || (j.execution !== null && j.setup?.state === 'running'), runtime.launchWaitMs);
  // A setup that failed leaves the worktree for a retry (and the person's look at what it did).
  const setupFailed = settled.setup?.state === 'failed';
  if (settled.lifecycle.state === 'failed' && settled.lifecycle.startedAt === null && createdWorktree && !setupFailed) {
    // Its own worker could not start the agent (or someone else failed it: undoLaunch tells). A retry's failure (a later generation) is told apart by undoLaunch, which re-reads the record.
    await undoLaunch(ctx, job, true, settled.lifecycle.detail ?? 'the agent did not start');
  }
  ctx.changed(id);
}

/** What a new worktree gets (`copy`, `link`, `.worktreeinclude`), found in the main worktree. */
function listWorktreeFiles(job: JobRecord): Promise<WorktreeFilesPlan | null> {
  const plan = job.settings.worktree;
  return planWorktreeFiles({ repo: job.repo, copy: plan?.copy ?? [], link: plan?.link ?? [] });
}

/** The listed files into the worktree just made, and a line on the timeline saying what came in. */
async function bringFiles(ctx: OperationContext, job: JobRecord, files: WorktreeFilesPlan | null): Promise<void> {
  if (!files) return;
  for (const message of describeWorktreeFiles(await placeWorktreeFiles(files, job.worktree!))) {
    await ctx.store.appendTimeline(job.id, { generation: job.lifecycle.generation, type: 'worktree-files', message });
  }
}

/**
 * Undoes a failed launch. Only the launcher's own undo removes anything — the record still `starting`
 * (its lock held throughout) or failed by its own worker — and only over a worktree holding nothing
 * but the launch's own files. A launcher that finds its agent ended by someone else (failed while it
 * was suspended, bug 132) removes nothing: the worktree was shown and open meanwhile, so it is left to
 * Clean Up, which captures what is in it before removing it. A window remains between the look and
 * git's removal (git has no "remove if unchanged"): it is the launcher's own, with the record still
 * `starting` and the worktree not yet offered to anyone as a failed agent's.
 */
export async function undoLaunch(ctx: OperationContext, job: JobRecord, createdWorktree: boolean, reason: string): Promise<void> {
  const { store } = ctx;
  const id = job.id;
  const problems: string[] = [];
  const now = await store.read(id);
  if (now.lifecycle.generation !== job.lifecycle.generation) {
    // Retried meanwhile (failed while this launcher was stopped): the record and the worktree are the retry's.
    ctx.log(`agent ${id}: a launch of an earlier run of it failed (${reason}); it was retried meanwhile, so nothing is undone`);
    return;
  }
  const ours = now.lifecycle.state === 'starting' || (await endedByItsOwnWorker(ctx, now));
  let kept: string | null = null;
  if (createdWorktree && job.worktree && job.branch) {
    if (!ours) kept = 'the agent was ended by another process while its launcher was stopped';
    // Never by force over work: only a worktree holding nothing but the launch's own files goes (bug 132).
    else kept = await launchWorktreeTouched(job).catch((err: unknown) => `it could not be looked at (${describeError(err)})`);
    if (kept === null) {
      await removeWorktree(job.repo, job.worktree).catch((err) => problems.push(`worktree: ${describeError(err)}`));
      if (problems.length === 0) await removeBranchAtBase(job.repo, job.branch, job.baseSha!).catch((err) => problems.push(`branch: ${describeError(err)}`));
      if (problems.length === 0) {
        await store.update(id, (j) => ({ ...j, worktree: null, branch: null, cwd: j.repo }));
      }
    }
  }
  // A first generation that never ran cannot be retried: its environment is of no further use.
  if (job.lifecycle.generation === 1) removeRequestEnv(store.jobDir(id));
  const detail = problems.length ? `${reason} (undo incomplete: ${problems.join('; ')})` : reason;
  if (kept !== null) {
    await store.appendTimeline(id, { generation: job.lifecycle.generation, type: 'worktree-kept', message: keptWorktreeWords(job.branch!, kept) });
    await recordKept(ctx, job, kept);
  }
  await failJob(store, id, detail);
  ctx.changed(id);
  ctx.log(`agent ${id} failed to start: ${detail}`);
}

/**
 * Failed by the launch's own worker: it claimed and could not start the agent, or it died before
 * claiming (a reader's reconciliation, `launch-failed`). Failed any other way — unclaimed, while its
 * launcher was suspended (bug 132) — someone else ended it.
 */
async function endedByItsOwnWorker(ctx: OperationContext, now: JobRecord): Promise<boolean> {
  if (now.lifecycle.state !== 'failed') return false;
  const timeline = await ctx.store.readTimeline(now.id);
  return timeline.some((e) => e.generation === now.lifecycle.generation && (e.type === 'claimed' || e.type === 'launch-failed'));
}

/** Deletes the branch only while it still points at the base (`update-ref -d` with the old value): never `branch -D` over a commit. */
async function removeBranchAtBase(repo: string, branch: string, baseSha: string): Promise<void> {
  const res = await runGit(['update-ref', '-d', `refs/heads/${branch}`, baseSha], { cwd: repo, allowFailure: true });
  if (res.code !== 0 && (await branchTip(repo, branch)) !== null) throw failure(`Branch ${branch} was kept: ${res.stderr.trim().split('\n')[0]}`);
}

/**
 * On the record before the failure, so the failure's own timeline line says it too, and even when someone else
 * failed it first (its launcher was suspended): `lifecycleDetail` says why the worktree stays (keptWorktree.ts).
 */
async function recordKept(ctx: OperationContext, job: JobRecord, why: string): Promise<void> {
  const generation = job.lifecycle.generation;
  await ctx.store.update(job.id, (j) => (j.lifecycle.generation !== generation ? j : { ...j, keptWorktree: { branch: job.branch!, why, generation } }));
}
