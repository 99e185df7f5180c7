/**
 * How a retry runs the agent: with its profile's resume arguments, unless they continue a
 * conversation the agent never saved. Claude Code's `--continue` then exits at once ("No
 * conversation found to continue"): an agent stopped at its first screen (the folder trust
 * question a new worktree asks), or one that could not reach its API, saves none, and every retry
 * of it failed the same way. Such a retry starts a new conversation: with the retry's own prompt on
 * the command line when it has one (typed in, it would land on that trust question), else with the
 * start command and its prompt.
 */
import { transcriptKindOf, hasClaudeConversation } from '../usage/transcripts';
import type { JobRecord } from '../store/schema';

const CONTINUE_FLAGS = new Set(['--continue', '-c']);

/** The resume arguments this retry uses; null: the agent's command as it is (no way to resume, or nothing to resume and no prompt of its own). */
export async function retryResumeArgs(job: JobRecord, env: NodeJS.ProcessEnv, prompt: string | undefined): Promise<string[] | null> {
  const resumeArgs = job.settings.resumeArgs;
  if (resumeArgs === null || job.worktree === null) return resumeArgs;
  if (transcriptKindOf(job.command) !== 'claude' || !resumeArgs.some((a) => CONTINUE_FLAGS.has(a))) return resumeArgs;
  if (await hasClaudeConversation(job.worktree, env)) return resumeArgs;
  return prompt !== undefined ? resumeArgs.filter((a) => !CONTINUE_FLAGS.has(a)) : null;
}

/**
 * Whether a retry's `command` left out the continue flag of the profile's `resumeArgs`: there was no
 * conversation to continue, so it began a new one (above). Said to the person who sent it a review,
 * who would otherwise believe the agent went on where it stopped.
 */
export function beganNewConversation(resumeArgs: readonly string[] | null, command: readonly string[]): boolean {
  if (resumeArgs === null || !resumeArgs.some((a) => CONTINUE_FLAGS.has(a))) return false;
  return !command.slice(1).some((a) => CONTINUE_FLAGS.has(a));
}
