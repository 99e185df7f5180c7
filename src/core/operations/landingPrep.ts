/**
 * What every landing asks before it starts, so that nothing is silently left
 * behind: a running agent is stopped first or landed as it is, and
 * uncommitted work in its worktree is committed first (message from its title
 * and prompt) or deliberately left out. Without a decision the operation
 * refuses and says which flags (or which question in a window) decide it.
 * A worktree a git operation stopped half-way in, or whose HEAD is away from
 * the agent's branch with work the branch lacks, is refused first.
 */
import { existsSync } from 'node:fs';
import { failure, usageError, type PaddockError } from '../common/errors';
import { branchTip, commitAllWork, localChanges, type LocalChanges } from '../git';
import { ensureLinked, worktreeLink } from '../git/worktreeLink';
import type { JobStore } from '../store';
import type { JobRecord } from '../store/schema';
import { hasLiveWorktree, isLive } from './rules';
import { stopLocked } from './stop';
import { settlingOnError, startEarly } from '../common/early';
import { judgeAgentWorktree, readAgentWorktree, type AgentWorktreeState, type HeadAway } from './agentWorktreeCheck';

export interface LandingChoices {
  /** Uncommitted work in the agent's worktree: commit it first, or land only the commits. */
  uncommitted?: 'commit' | 'commits-only';
  /** A running agent: stop it first, or land what is there now. */
  running?: 'stop' | 'as-is';
}

export const RUNNING_CHOICE_CODE = 'RUNNING_CHOICE';
export const UNCOMMITTED_CHOICE_CODE = 'UNCOMMITTED_CHOICE';

/** The first line of the agent's title, short enough for a commit subject or a pull request title. */
export function titleLine(job: JobRecord): string {
  return job.title.split('\n')[0].slice(0, 200);
}

/** The agent's worktree when it has not been cleaned up and is still on disk, else null. */
export function worktreeOnDisk(job: JobRecord): string | null {
  return hasLiveWorktree(job) && job.worktree && existsSync(job.worktree) ? job.worktree : null;
}

/** The message of the commit that saves an agent's uncommitted work: its title, then the prompt it ran with. */
export function uncommittedWorkMessage(job: JobRecord): string {
  const title = titleLine(job) || `Work of agent ${job.id}`;
  const prompt = job.command.length > 1 ? job.command[job.command.length - 1] : '';
  const body = [`Uncommitted work of Paddock agent ${job.id}, committed before landing.`];
  if (prompt && prompt !== title) body.push('', `Prompt: ${prompt.slice(0, 4000)}`);
  return `${title}\n\n${body.join('\n')}\n`;
}

/**
 * The agent's worktree on disk, linked to its repository (a link the agent cut is written again),
 * or null when there is none; refuses in one sentence when it is a repository of its own.
 */
export async function linkedWorktree(job: JobRecord): Promise<string | null> {
  const worktree = worktreeOnDisk(job);
  if (worktree === null) return null;
  await linkOrRefuse(job, worktree);
  return worktree;
}

/** `ensureLinked`, or the refusal; true when the link had to be written again. */
async function linkOrRefuse(job: JobRecord, worktree: string): Promise<boolean> {
  const check = await ensureLinked(job.repo, worktree, job.branch);
  if (!check.ok) throw failure(`Agent ${job.id}'s work cannot be read: ${check.problem}; nothing was changed${check.own ? ' — move that .git aside first' : ''}.`);
  return check.note !== undefined;
}

/**
 * For a question asked before an operation (a window's dialog): whether the agent's worktree may
 * hold uncommitted work, read only. A worktree whose link the agent cut may: the operation links
 * it again and reads it then.
 */
export async function mayHaveUncommittedWork(job: JobRecord): Promise<boolean> {
  const worktree = worktreeOnDisk(job);
  if (worktree === null) return false;
  if ((await worktreeLink(job.repo, worktree)) !== 'linked') return true;
  return holdsUncommittedWork(worktree);
}

/** Whether the agent's worktree holds uncommitted work (tracked changes or untracked files); part of an operation (it links a cut worktree again). */
export async function hasUncommittedWork(job: JobRecord): Promise<boolean> {
  const worktree = await linkedWorktree(job);
  return worktree !== null && holdsUncommittedWork(worktree);
}

async function holdsUncommittedWork(worktree: string): Promise<boolean> {
  return holdsWork(await localChanges(worktree, 'normal'));
}

const holdsWork = (changes: LocalChanges): boolean => changes.tracked.length + changes.untracked.length > 0;

/** Whether `prepareAgentWork` stops the agent before anything else (a stopping agent may still write: what it changes is read after). */
export function stopsFirst(job: JobRecord, choices: LandingChoices): boolean {
  return isLive(job) && choices.running === 'stop';
}

/** What `prepareAgentWork` reads of the agent's worktree before it decides: all of it at once. */
export interface AgentWork {
  /** The worktree, linked to its repository (null: none on disk). */
  worktree: string | null;
  /** It holds uncommitted work (false when not asked). */
  dirty: boolean;
  state: AgentWorktreeState | null;
}

/** Links the worktree (once) and reads whether it holds uncommitted work and what its refusals are judged on, side by side. */
async function readAgentWork(job: JobRecord, headAway: HeadAway, asksDirty: boolean): Promise<AgentWork> {
  const worktree = worktreeOnDisk(job);
  if (worktree === null) return { worktree, dirty: false, state: null };
  // One status says both whether work is uncommitted and which files are unmerged. It only reads (no
  // optional locks), so it begins while the link is checked (the longest read of a landing), and is
  // read again when the link had to be written again first; a refusal lets it finish.
  let changes = asksDirty ? startEarly(localChanges(worktree, 'normal')) : null;
  const relinked = await settlingOnError([changes], () => linkOrRefuse(job, worktree));
  if (relinked && changes) {
    await changes.catch(() => undefined);
    changes = startEarly(localChanges(worktree, 'normal'));
  }
  const [dirty, state] = await Promise.all([
    changes ? changes.then(holdsWork) : false,
    readAgentWorktree(job, worktree, headAway, changes?.then((c) => c.unmerged)),
  ]);
  return { worktree, dirty, state };
}

function headAwayFor(opts: { includesUncommitted?: boolean }): HeadAway {
  return opts.includesUncommitted ? 'anything' : 'branch-has-it';
}

/**
 * The read-only part of `prepareAgentWork`, begun before it so that it runs at once with the
 * caller's other reads. Null when the agent is stopped first (read after the stop) or when the
 * operation refuses a running agent anyway.
 */
export function readAgentWorkEarly(job: JobRecord, choices: LandingChoices, opts: { includesUncommitted?: boolean } = {}): Promise<AgentWork> | null {
  if (isLive(job) && choices.running !== 'as-is') return null;
  return startEarly(readAgentWork(job, headAwayFor(opts), !opts.includesUncommitted));
}

export interface PrepareOptions {
  /** The operation takes uncommitted work itself (apply), so only the running choice is asked. */
  includesUncommitted?: boolean;
  /** `readAgentWorkEarly`'s answer for this record, with the same `includesUncommitted`; ignored after a stop. */
  uncommitted?: Promise<AgentWork> | null;
  /** The operation's log (`ctx.log`): names a scratch folder the commit of uncommitted work left behind (bug 194). */
  log?: (message: string) => void;
}

export interface PreparedWork {
  job: JobRecord;
  /** Whether the agent was stopped or its work committed: anything read before may be stale. */
  changed: boolean;
}

/** Applies the choices under the job's lock; returns the record as it is now. */
export async function prepareAgentWork(store: JobStore, job: JobRecord, choices: LandingChoices, opts: PrepareOptions = {}): Promise<JobRecord> {
  return (await prepareAgentWorkReporting(store, job, choices, opts)).job;
}

/** `prepareAgentWork`, saying whether it changed anything. */
export async function prepareAgentWorkReporting(store: JobStore, job: JobRecord, choices: LandingChoices, opts: PrepareOptions = {}): Promise<PreparedWork> {
  let early = opts.uncommitted ?? null;
  let changed = false;
  if (isLive(job)) {
    if (choices.running === undefined) {
      throw usageError(`Agent ${job.id} is still ${job.lifecycle.state}; choose to stop it first (--stop-first) or to land what is there now (--while-running).`, RUNNING_CHOICE_CODE);
    }
    if (choices.running === 'stop') {
      const report = await stopLocked(store, job.id, { force: false });
      if (!report.stopped) throw failure(`Agent ${job.id} could not be stopped (${report.reason ?? 'unknown reason'}); nothing was landed.`);
      job = await store.read(job.id);
      early = null;
      changed = true;
    }
  }
  const headAway = headAwayFor(opts);
  const { worktree, dirty, state } = await (early ?? readAgentWork(job, headAway, !opts.includesUncommitted));
  if (worktree !== null && state !== null) {
    judgeAgentWorktree(job, worktree, state, { headAway, takesUncommitted: dirty && choices.uncommitted !== 'commits-only' });
  }
  if (dirty) {
    if (choices.uncommitted === undefined) {
      throw usageError(
        `Agent ${job.id} has uncommitted changes in its worktree; choose to commit them first (--commit-uncommitted) or to land only its commits (--commits-only).`,
        UNCOMMITTED_CHOICE_CODE,
      );
    }
    if (choices.uncommitted === 'commit') {
      await commitAllWork(job.worktree!, uncommittedWorkMessage(job), job.branch!, opts.log);
      changed = true;
    }
  }
  return { job, changed };
}

/** The commit the agent's branch points at; a usage error when the branch is gone. */
export async function agentBranchTip(job: JobRecord): Promise<string> {
  const tip = job.branch ? await branchTip(job.repo, job.branch) : null;
  if (tip === null) throw noAgentBranch(job);
  return tip;
}

/** `agentBranchTip`'s refusal, for a caller that read the tip with others (`branchTips`). */
export function noAgentBranch(job: JobRecord): PaddockError {
  return usageError(`Agent ${job.id}'s branch ${job.branch ?? '(none)'} does not exist in ${job.repo}.`);
}
