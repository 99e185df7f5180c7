/**
 * Launch and undo: the worktree (first generation) and the worker of a job the
 * scheduler has moved to `starting`. A launch that fails is undone — the
 * worktree and branch it made are removed — and recorded as `failed`. A first
 * generation's worker is spawned gated, before its worktree (launchGate.ts).
 */
import { existsSync } from 'node:fs';
import { settle, startEarly } from '../common/early';
import { describeError, failure } from '../common/errors';
import { addWorktree, deleteBranch, removeWorktree } from '../git';
import { assertRunnable } from '../profiles';
import { runtimeDirFor } from '../protocol/runtimeDir';
import { openRequestEnv, removeRequestEnv } from '../coordinator/requestEnv';
import type { OperationContext } from '../operations/context';
import { failJob } from '../operations/failJob';
import { runInWorktreeProblem } from '../operations/runInWorktree';
import { describeWorktreeFiles, placeWorktreeFiles, planWorktreeFiles, type WorktreeFilesPlan } from '../repoConfig/worktreeFiles';
import type { JobRecord } from '../store';
import { spawnWorker, type SpawnedWorker } from '../worker/spawn';
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
    const env = openRequestEnv(store.jobDir(id), id, runtimeDirFor(ctx.env));
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
  if (settled.lifecycle.state === 'failed' && settled.lifecycle.generation === job.lifecycle.generation && settled.lifecycle.startedAt === null && createdWorktree && !setupFailed) {
    // The worker could not start the agent: the worktree holds nothing of it yet.
    await undoLaunch(ctx, settled, true, settled.lifecycle.detail ?? 'the agent did not start');
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
  const message = describeWorktreeFiles(await placeWorktreeFiles(files, job.worktree!));
  if (message) await ctx.store.appendTimeline(job.id, { generation: job.lifecycle.generation, type: 'worktree-files', message });
}

export async function undoLaunch(ctx: OperationContext, job: JobRecord, createdWorktree: boolean, reason: string): Promise<void> {
  const { store } = ctx;
  const id = job.id;
  const problems: string[] = [];
  if ((await store.read(id)).lifecycle.generation !== job.lifecycle.generation) {
    // Retried meanwhile (failed while this launcher was stopped): the record and the worktree are the retry's.
    ctx.log(`agent ${id}: a launch of an earlier run of it failed (${reason}); it was retried meanwhile, so nothing is undone`);
    return;
  }
  let kept: string | null = null;
  if (createdWorktree && job.worktree && job.branch) {
    // Never by force over work: only a worktree holding nothing but the launch's own files goes (bug 132).
    kept = await launchWorktreeTouched(job).catch((err: unknown) => `it could not be looked at (${describeError(err)})`);
    if (kept === null) {
      await removeWorktree(job.repo, job.worktree).catch((err) => problems.push(`worktree: ${describeError(err)}`));
      await deleteBranch(job.repo, job.branch, { force: true, worktree: job.worktree }).catch((err) => problems.push(`branch: ${describeError(err)}`));
      if (problems.length === 0) {
        await store.update(id, (j) => ({ ...j, worktree: null, branch: null, cwd: j.repo }));
      }
    }
  }
  // A first generation that never ran cannot be retried: its environment is of no further use.
  if (job.lifecycle.generation === 1) removeRequestEnv(store.jobDir(id));
  const keptWords = kept === null ? '' : `; its worktree and branch ${job.branch} are kept, ${kept} (paddock cleanup keeps its work and removes them)`;
  const detail = problems.length ? `${reason} (undo incomplete: ${problems.join('; ')})` : `${reason}${keptWords}`;
  if (kept !== null) await store.appendTimeline(id, { generation: job.lifecycle.generation, type: 'worktree-kept', message: keptWords.slice(2) });
  await failJob(store, id, detail);
  if (kept !== null) await sayKept(ctx, job, keptWords.slice(2));
  ctx.changed(id);
  ctx.log(`agent ${id} failed to start: ${detail}`);
}

/** On the record even when someone else failed it first (its launcher was suspended): its detail says why the worktree stays. */
async function sayKept(ctx: OperationContext, job: JobRecord, words: string): Promise<void> {
  await ctx.store.update(job.id, (j) =>
    j.lifecycle.generation !== job.lifecycle.generation || (j.lifecycle.detail ?? '').includes(words) ? j : { ...j, lifecycle: { ...j.lifecycle, detail: `${j.lifecycle.detail ?? 'failed to start'}; ${words}`.slice(0, 2000) } },
  );
}
