/**
 * How a retry runs the agent: with its profile's resume arguments, unless they continue a
 * conversation the agent never saved. Claude Code's `--continue` then exits at once ("No
 * conversation found to continue"): an agent stopped at its first screen (the folder trust
 * question a new worktree asks), or one that could not reach its API, saves none, and every retry
 * of it failed the same way. Such a retry runs the start command again (its prompt with it).
 */
import { transcriptKindOf, hasClaudeConversation } from '../usage/transcripts';
import type { JobRecord } from '../store/schema';

/** The resume arguments this retry uses; null: the agent's command as it is (no way to resume, or nothing to resume). */
export async function retryResumeArgs(job: JobRecord, env: NodeJS.ProcessEnv): Promise<string[] | null> {
  const resumeArgs = job.settings.resumeArgs;
  if (resumeArgs === null || job.worktree === null) return resumeArgs;
  if (transcriptKindOf(job.command) !== 'claude' || !resumeArgs.some((a) => a === '--continue' || a === '-c')) return resumeArgs;
  return (await hasClaudeConversation(job.worktree, env)) ? resumeArgs : null;
}
