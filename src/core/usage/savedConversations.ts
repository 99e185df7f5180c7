/**
 * Whether an agent has saved a conversation in its folder for a resume to continue. Each agent
 * decides it its own way, and one without one does something different (a retry must know which):
 *
 * - Claude Code's `--continue` picks the latest session file in its project folder for the cwd;
 *   without one it exits at once ("No conversation found to continue").
 * - Codex's `resume --last` picks the latest rollout whose `session_meta` names the cwd; without one
 *   it starts a new conversation (codex-rs tui: `unwrap_or(ResumeSelection::StartFresh)`).
 */
import { realPathOr } from '../common/paths';
import { claudeProjectDir, codexSessionsDir, CodexSession, dayFolders, sessionFiles } from './transcripts';

export async function hasClaudeConversation(cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  // Claude Code names the folder as its process sees it (symbolic links resolved).
  const real = await realPathOr(cwd, cwd);
  return (await sessionFiles(claudeProjectDir(real, env), (name) => name.endsWith('.jsonl'), 0)).length > 0;
}

/** `sinceMs`: when the agent was created; an older rollout is not its own (and its day folders are not looked in). */
export async function hasCodexSession(cwd: string, sinceMs: number, env: NodeJS.ProcessEnv = process.env, nowMs = Date.now()): Promise<boolean> {
  const real = await realPathOr(cwd, cwd);
  for (const dir of dayFolders(codexSessionsDir(env), sinceMs, nowMs)) {
    for (const path of await sessionFiles(dir, (name) => name.startsWith('rollout-') && name.endsWith('.jsonl'), sinceMs)) {
      const session = new CodexSession(path);
      await session.update().catch(() => undefined); // unreadable: not a session to continue
      if (session.cwd === real || session.cwd === cwd) return true;
    }
  }
  return false;
}
