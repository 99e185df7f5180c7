/**
 * The one decision "may the commands of this `.paddock.json` run?" (setup,
 * teardown, check): yes when a trusted VS Code workspace holds the repository,
 * or when the person allowed this file's exact content (`paddock allow`);
 * otherwise a refusal that says how to allow, in one sentence. A trusted
 * workspace vouches for its own folders only: an agent started from it in
 * another repository (a row's repository, a command given a path) is not.
 */
import * as path from 'node:path';
import { PaddockError } from '../common/errors';
import { isWithin } from '../common/paths';
import type { RepoConfigFile } from './paddockJson';
import { RepoConfigTrust } from './trust';

export const NOT_TRUSTED = 'NOT_TRUSTED';
/** The allow list could not be read this time: nothing is known of what it allows. */
export const ALLOW_LIST_UNREADABLE = 'ALLOW_LIST_UNREADABLE';

export interface RepoCommands {
  setup: string | null;
  teardown: string | null;
  check: string | null;
}

export interface TrustContext {
  /** The store (its allow list). */
  home: string;
  /** The folders of the VS Code workspace when it is trusted (`vscode.workspace.isTrusted`); none when not, and from the CLI. */
  trustedFolders: readonly string[];
}

/**
 * Whether a trusted workspace holds `repo`: one of its folders is the repository, lies inside it (a
 * package of a monorepo) or holds it. Paths as given: the adapter passes its folders' real paths.
 */
export function trustedWorkspaceHolds(repo: string, trustedFolders: readonly string[]): boolean {
  return trustedFolders.some((folder) => isWithin(folder, repo) || isWithin(repo, folder));
}

/**
 * The commands of `file` that may run (all null when it has none), or throws
 * a `NOT_TRUSTED` failure naming the commands and how to allow them. `needed`
 * narrows the question to the commands the caller will run.
 */
export async function trustedRepoCommands(
  file: RepoConfigFile | null,
  ctx: TrustContext,
  needed: readonly (keyof RepoCommands)[] = ['setup', 'teardown', 'check'],
): Promise<RepoCommands> {
  const commands: RepoCommands = { setup: file?.config.setup ?? null, teardown: file?.config.teardown ?? null, check: file?.config.check ?? null };
  const asked = needed.filter((name) => commands[name] !== null);
  if (!file || asked.length === 0 || trustedWorkspaceHolds(path.dirname(file.path), ctx.trustedFolders)) return commands;
  const verdict = await new RepoConfigTrust(ctx.home).verdict(file);
  if (verdict.kind === 'allowed') return commands;
  const what = asked.length === 1 ? `the ${asked[0]} command` : `the ${asked.join(' and ')} commands`;
  if (verdict.kind === 'unreadable') {
    // Not "not allowed": the file may well be, and `paddock allow` would refuse the unread list too.
    throw new PaddockError(`The allow list ${verdict.file} could not be read (${verdict.why}), so ${what} of ${file.path} will not run.`, 'failed', ALLOW_LIST_UNREADABLE);
  }
  throw new PaddockError(refusalOf(file, what, verdict.kind === 'changed'), 'failed', NOT_TRUSTED);
}

function refusalOf(file: RepoConfigFile, what: string, changed: boolean): string {
  const repo = path.dirname(file.path);
  const why = changed ? 'changed since it was allowed' : 'not allowed';
  return `${file.path} is ${why}, so ${what} will not run: trust the workspace in VS Code, or review the file and run \`paddock allow --repo ${repo}\`.`;
}
