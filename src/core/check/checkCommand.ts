/**
 * Which check command an agent's worktree is checked with. In order: the
 * person's own setting `paddock.checkCommand` (given by the window at the
 * moment of a Run Check, or recorded on the agent when it started), then
 * `check` in the repository's `.paddock.json` — the main worktree's copy, not
 * the agent's (an agent must not choose what runs after it), and only when
 * trusted: the window's workspace is trusted, or `paddock allow` allowed this
 * exact content.
 */
import { PADDOCK_JSON, readRepoConfig } from '../repoConfig/paddockJson';
import { RepoConfigTrust } from '../repoConfig/trust';
import type { JobRecord } from '../store/schema';
import { failure, usageError } from '../common/errors';

export interface CheckCommand {
  command: string;
  source: 'setting' | typeof PADDOCK_JSON;
  /** How long it may run (`checkTimeoutSeconds` in `.paddock.json`, else CHECK_TIMEOUT_SECONDS). */
  timeoutSeconds: number;
}

/** A check still running after this long is ended and recorded failed: a hung check must not hold its slot forever. */
export const CHECK_TIMEOUT_SECONDS = 1800;

export interface CheckCommandOptions {
  /** The store's home (where `paddock allow` keeps its list). */
  home: string;
  /** The person's current `paddock.checkCommand` (a window's Run Check); wins over everything. */
  settingCommand?: string | null;
  /** The adapter's word that this repository is trusted (VS Code: a trusted workspace holding it). */
  repoTrusted?: (repo: string) => boolean;
}

/** The check command in force, or null when none is set anywhere. Throws when `.paddock.json` sets one that is not trusted. */
export async function findCheckCommand(job: JobRecord, opts: CheckCommandOptions): Promise<CheckCommand | null> {
  const own = opts.settingCommand?.trim() || job.settings.checkCommand?.trim();
  if (own) {
    // The bound comes from the file whoever set the command (a number runs nothing: no trust needed);
    // a broken file does not stop a check it does not set.
    const bound = await readRepoConfig(job.repo).catch(() => null);
    return { command: own, source: 'setting', timeoutSeconds: bound?.config.checkTimeoutSeconds ?? CHECK_TIMEOUT_SECONDS };
  }
  const file = await readRepoConfig(job.repo);
  const timeoutSeconds = file?.config.checkTimeoutSeconds ?? CHECK_TIMEOUT_SECONDS;
  const command = file?.config.check?.trim();
  if (!file || !command) return null;
  if (opts.repoTrusted?.(job.repo) === true) return { command, source: PADDOCK_JSON, timeoutSeconds };
  const verdict = await new RepoConfigTrust(opts.home).verdict(file);
  if (verdict.kind === 'unreadable') {
    // Not "run paddock allow": the file may well be allowed, and `allow` would refuse the unread list too.
    throw failure(`The allow list ${verdict.file} could not be read (${verdict.why}), so the check command of ${file.path} will not run.`, 'ALLOW_LIST_UNREADABLE');
  }
  if (verdict.kind !== 'allowed') {
    throw usageError(`${file.path} sets the check command "${command}", but it is not trusted here: run paddock allow in ${job.repo} (or trust the workspace) first.`, 'UNTRUSTED_CONFIG');
  }
  return { command, source: PADDOCK_JSON, timeoutSeconds };
}

/** The check command in force, or a usage error that says how to set one. */
export async function requireCheckCommand(job: JobRecord, opts: CheckCommandOptions): Promise<CheckCommand> {
  const found = await findCheckCommand(job, opts);
  if (found) return found;
  throw usageError(`No check command is set: set paddock.checkCommand, or "check" in ${job.repo}/${PADDOCK_JSON} (for example "check": "npm test").`, 'NO_CHECK');
}
