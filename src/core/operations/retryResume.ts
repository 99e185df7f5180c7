/**
 * How a retry runs the agent: with its profile's resume arguments, unless they continue a
 * conversation the agent never saved. An agent stopped at its first screen (the folder trust
 * question a new worktree asks), or one that could not reach its API, saves none. Then:
 *
 * - Claude Code's `--continue` exits at once ("No conversation found to continue"), and every retry
 *   of it failed the same way (bug 58). Such a retry starts a new conversation: with the retry's own
 *   prompt on the command line when it has one (typed in, it would land on that trust question),
 *   else with the start command and its prompt.
 * - Codex's `resume --last` starts a new conversation by itself; the command stays as it is.
 *
 * Either way the retry began a new conversation, and a person who sent it a review is told so, who
 * would otherwise believe the agent went on where it stopped (bug 179).
 */
import { basename } from 'node:path';
import { hasClaudeConversation, hasCodexSession } from '../usage/savedConversations';
import type { JobRecord } from '../store/schema';

// Claude Code's only: Codex's `-c` sets a configuration value (its stored `-c notify=…`).
const CLAUDE_CONTINUE_FLAGS = new Set(['--continue', '-c']);

export interface RetryResume {
  /** The resume arguments this retry uses; null: the agent's command as it is (no way to resume, or nothing to resume and no prompt of its own). */
  readonly args: string[] | null;
  /** The resume arguments would continue a conversation, and the agent saved none: the retry begins a new one. */
  readonly newConversation: boolean;
}

export async function retryResume(job: JobRecord, env: NodeJS.ProcessEnv, prompt: string | undefined): Promise<RetryResume> {
  const resumeArgs = job.settings.resumeArgs;
  const asIs = { args: resumeArgs, newConversation: false };
  if (resumeArgs === null || job.worktree === null) return asIs;
  // Decided by the program run, not the profile's name: a profile of its own may run either.
  const program = basename(job.command[0] ?? '').replace(/\.(exe|cmd)$/i, '');
  if (program === 'claude' && resumeArgs.some((a) => CLAUDE_CONTINUE_FLAGS.has(a))) {
    if (await hasClaudeConversation(job.worktree, env)) return asIs;
    return { args: prompt !== undefined ? resumeArgs.filter((a) => !CLAUDE_CONTINUE_FLAGS.has(a)) : null, newConversation: true };
  }
  if (program === 'codex' && resumeArgs.includes('resume')) {
    const createdAtMs = Date.parse(job.createdAt);
    return { args: resumeArgs, newConversation: !(await hasCodexSession(job.worktree, Number.isNaN(createdAtMs) ? 0 : createdAtMs, env)) };
  }
  return asIs;
}
