/**
 * The GitHub CLI (`gh`), when installed and logged in: opens the pull
 * request. Run without a shell, bounded by a timeout, never prompting.
 */
import { spawn } from 'node:child_process';
import { failure } from '../common/errors';

const GH_TIMEOUT_MS = 60_000;

export interface ProgramResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `gh args…`; null when gh is not installed (not on PATH). */
export function runGh(args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<ProgramResult | null> {
  return new Promise((resolve, reject) => {
    const child = spawn('gh', args, { cwd, env: { ...env, GH_PROMPT_DISABLED: '1', GH_NO_UPDATE_NOTIFIER: '1', NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
      reject(failure(`gh ${args[0]} did not finish within ${GH_TIMEOUT_MS / 1000} s and was stopped.`));
    }, GH_TIMEOUT_MS);
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (e.code === 'ENOENT') resolve(null);
      else reject(failure(`Could not run gh: ${e.message}.`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

export interface PullRequestRequest {
  repo: string;
  branch: string;
  base: string;
  title: string;
  body: string;
  draft: boolean;
  /** [HOST/]OWNER/REPO, so gh does not have to guess from several remotes. */
  ghRepo: string | null;
}

/** The new pull request's URL (or the open one the push updated); null when gh is missing or not logged in (the caller falls back to the compare page). */
export async function createPullRequestWithGh(req: PullRequestRequest, env?: NodeJS.ProcessEnv): Promise<string | null> {
  const status = await runGh(['auth', 'status'], req.repo, env);
  if (status === null || status.code !== 0) return null;
  const args = ['pr', 'create', '--head', req.branch, '--base', req.base, '--title', req.title, '--body', req.body];
  if (req.draft) args.push('--draft');
  if (req.ghRepo) args.push('--repo', req.ghRepo);
  const res = await runGh(args, req.repo, env);
  if (res === null) return null;
  if (res.code !== 0) {
    // Pushed again while its pull request is open: the push updated that pull request, which is the result.
    const open = existingPullRequest(res.stderr);
    if (open) return open;
    const line = res.stderr.split('\n').map((l) => l.trim()).find(Boolean) ?? `exit code ${res.code}`;
    throw failure(`gh pr create failed (${line}); the branch ${req.branch} was pushed, nothing else was changed.`, 'GH_FAILED');
  }
  const url = res.stdout.split(/\s+/).reverse().find((w) => /^https?:\/\//.test(w));
  return url ?? res.stdout.trim();
}

/** The URL gh names when a pull request for the branch is already open ("… already exists:\nURL"). */
function existingPullRequest(stderr: string): string | null {
  if (!/already exists/i.test(stderr)) return null;
  return stderr.split(/\s+/).find((w) => /^https?:\/\/\S+\/pull\/\d+/.test(w)) ?? null;
}
