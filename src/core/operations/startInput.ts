/**
 * What a start asks of the repository and the machine, checked before anything is created: a
 * folder that is no repository, a base that names no commit or a program that is not there is bad
 * input (exit 2), and leaves no record, worktree or branch behind.
 */
import { isAbsolute } from 'node:path';
import { describeError, PaddockError, usageError } from '../common/errors';
import { resolveCommit, resolveRepoRoot } from '../git';
import { assertRunnable } from '../profiles';
import type { StartPlan } from '../coordinator/startPlan';

/** The main working tree of the repository `dir` is in. */
export async function startRepo(dir: string): Promise<string> {
  try {
    return await resolveRepoRoot(dir);
  } catch (err) {
    throw usageError(describeError(err));
  }
}

/**
 * Refuses, as bad input, a program that is neither on PATH nor an executable file. A relative path
 * (`./run.sh`) names a file of the agent's worktree, which does not exist yet and is checked out from
 * the base, not from the main worktree: it is left to the launch, which looks for it there.
 */
export function assertStartRunnable(program: string, env: NodeJS.ProcessEnv, cwd: string): void {
  if (program.includes('/') && !isAbsolute(program)) return;
  try {
    assertRunnable(program, env, cwd);
  } catch (err) {
    throw err instanceof PaddockError ? usageError(err.message) : err;
  }
}

/** Every attempt's input at once, before the first attempt is created (see GroupOperations.startAttempts). */
export async function checkStartInput(dir: string, plans: readonly StartPlan[], env: NodeJS.ProcessEnv): Promise<void> {
  const repo = await startRepo(dir);
  // One request: every attempt has its base; only the profiles (and so the programs) differ.
  await resolveCommit(repo, plans[0].base);
  for (const plan of plans) assertStartRunnable(plan.command[0], { ...env, ...plan.env }, repo);
}
