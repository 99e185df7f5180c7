/** Retry, under the job's operation lock held by the caller: a new generation of an ended agent, queued. */
import { failure, usageError } from '../common/errors';
import { sealRequestEnv } from '../coordinator/requestEnv';
import { resolveProfile } from '../profiles';
import { runtimeDirFor } from '../protocol/runtimeDir';
import { resumeCommand, resumeTakesPrompt } from '../coordinator/startPlan';
import { assertUsablePrompt, promptToType } from '../profiles';
import type { JobRecord, JobSettings, JobStore } from '../store';
import { storeErrorWords } from '../store/damagedPart';
import { damagedWrittenPart } from '../store/jobFolderCheck';
import { StoreLayout } from '../store/paths';
import type { OperationContext } from './context';
import { retryBlocker } from './rules';
import { retryResume } from './retryResume';
import { runInWorktreeProblem } from './runInWorktree';

/**
 * The retry's new generation, queued. `prompt`: what the new execution is asked to do. It goes into
 * the argv when the resume arguments used have a `{prompt}`; otherwise the record keeps it as the
 * generation's `settings.typedPrompt`, and the worker types it in once the agent asks for it, as it
 * does a start's (worker/typedPrompt.ts) — also when the retry waits in the queue first.
 */
export async function beginRetry(ctx: OperationContext, id: string, automatic: boolean, prompt?: string, onWarning: (text: string) => void = () => undefined, onNewConversation: () => void = () => undefined): Promise<JobRecord> {
  const store = ctx.store;
  const job = await store.read(id);
  const blocker = retryBlocker(job);
  if (blocker) throw usageError(blocker);
  // Never a folder that is no longer the agent's git worktree: git there finds another repository.
  const worktreeProblem = await runInWorktreeProblem(job);
  if (worktreeProblem) throw failure(`Agent ${id} cannot be retried: ${worktreeProblem}; nothing was changed.`);
  const env = agentEnv(ctx, job);
  const resume = await retryResume(job, env, prompt);
  const resumeArgs = resume.args;
  const promptInArgs = prompt !== undefined && resumeTakesPrompt(resumeArgs) ? prompt : undefined;
  if (promptInArgs !== undefined) assertUsablePrompt(job.profile ?? 'its', resumeArgs ?? [], promptInArgs);
  // What the new execution writes must be sound before anything changes: damage found half-way
  // left a retry begun that was reported failed (bug 49).
  const damaged = await damagedWrittenPart(new StoreLayout(store.home), id);
  if (damaged) throw failure(`Agent ${id} cannot be retried: ${damaged}; nothing was changed (move it aside, then retry).`);
  const previous = job.command;
  // A person's retry runs with that person's environment; an automatic restart keeps the one of the request before.
  if (!automatic) {
    await sealRequestEnv(store.jobDir(id), id, env, runtimeDirFor(ctx.env)).catch((err: unknown) => {
      throw failure(`Agent ${id} cannot be retried: ${storeErrorWords(store.home, err)}; nothing was changed.`);
    });
  }
  await store.beginGeneration(id, { automatic });
  if (resume.newConversation) onNewConversation();
  // The retry has taken effect: what fails from here on is said as a warning, never as its failure.
  const typedPrompt = promptToType(prompt, promptInArgs !== undefined);
  const next = await store.update(id, (j) => ({ ...j, command: resumeCommand(j.command, resumeArgs, promptInArgs), settings: withTypedPrompt(j.settings, typedPrompt, j.lifecycle.generation) }));
  const generation = next.lifecycle.generation;
  const warn = (what: string) => (err: unknown) => {
    const text = `Agent ${id} was retried (generation ${generation}), but ${what}: ${storeErrorWords(store.home, err)}.`;
    ctx.log(text);
    onWarning(text);
  };
  await store
    .appendTimeline(id, {
      generation,
      type: automatic ? 'auto-restart' : 'retry',
      message: `${automatic ? 'automatic restart' : 'retry'} (generation ${generation}) of: ${previous.join(' ')}`,
    })
    .catch(warn('its timeline entry could not be written'));
  await markRetryInOutput(store, id, generation, automatic).catch(warn('its log could not be marked where the new execution begins'));
  ctx.log(`agent ${id} queued for ${automatic ? 'an automatic restart' : 'a retry'} (generation ${generation})`);
  return next;
}

/**
 * The settings of the new generation: the prompt its worker types in, marked as this generation's
 * (read as a start's otherwise: migrations.ts), or none (the start's is never typed again).
 */
function withTypedPrompt(settings: JobSettings, typedPrompt: string | undefined, generation: number): JobSettings {
  const { typedPrompt: _previous, typedPromptGeneration: _its, ...rest } = settings;
  return typedPrompt === undefined ? rest : { ...rest, typedPrompt, typedPromptGeneration: generation };
}

/** The terminal history continues in the same log: marks where the new execution begins. */
async function markRetryInOutput(store: JobStore, id: string, generation: number, automatic: boolean): Promise<void> {
  const output = store.openOutput(id);
  output.append(`\r\n\x1b[0m\x1b[2m──── ${automatic ? 'restarted' : 'retried'}: generation ${generation}, ${new Date().toISOString()} ────\x1b[0m\r\n`);
  await output.close();
}

/** The base environment plus the agent's profile's variables (as the settings say now). */
function agentEnv(ctx: OperationContext, job: JobRecord): NodeJS.ProcessEnv {
  let extra: Record<string, string> = {};
  if (job.profile !== null) {
    try {
      extra = resolveProfile(job.profile, ctx.settings().profiles, ctx.env).env;
    } catch {
      // The profile was removed from the settings since: run with the base environment.
    }
  }
  return { ...ctx.env, ...extra };
}

/**
 * Whether a person retried the agent between `seen` and `now` (two reads of its record). Every new
 * generation is a retry, a person's or the scheduler's automatic restart; only an automatic one raises
 * `recoveries` by one, and a person's resets it to 0 (JobStore.beginGeneration). So when automatic
 * restarts alone came between, both rose by the same count; a person's retry among them leaves
 * `recoveries` below that. A keep that took every new generation for a person's choice left running
 * an attempt the scheduler had restarted on its own (bug 154, fourth review).
 */
export function personRetriedSince(seen: JobRecord, now: JobRecord): boolean {
  return now.lifecycle.generation - seen.lifecycle.generation !== now.recoveries - seen.recoveries;
}
