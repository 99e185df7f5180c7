/**
 * The one decision "may the commands of this `.paddock.json` run?" (setup,
 * teardown, check): yes in a trusted VS Code workspace, or when the person
 * allowed this file's exact content (`paddock allow`); otherwise a refusal
 * that says how to allow, in one sentence.
 */
import * as path from 'node:path';
import { PaddockError } from '../common/errors';
import type { RepoConfigFile } from './paddockJson';
import { RepoConfigTrust } from './trust';

export const NOT_TRUSTED = 'NOT_TRUSTED';

export interface RepoCommands {
  setup: string | null;
  teardown: string | null;
  check: string | null;
}

export interface TrustContext {
  /** The store (its allow list). */
  home: string;
  /** The VS Code workspace is trusted (`vscode.workspace.isTrusted`); false from the CLI. */
  workspaceTrusted: boolean;
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
  if (!file || asked.length === 0 || ctx.workspaceTrusted) return commands;
  const trust = new RepoConfigTrust(ctx.home);
  if (await trust.isAllowed(file)) return commands;
  throw new PaddockError(refusalOf(file, asked, await trust.wasAllowedBefore(file)), 'failed', NOT_TRUSTED);
}

function refusalOf(file: RepoConfigFile, asked: readonly string[], changed: boolean): string {
  const repo = path.dirname(file.path);
  const what = asked.length === 1 ? `the ${asked[0]} command` : `the ${asked.join(' and ')} commands`;
  const why = changed ? 'changed since it was allowed' : 'not allowed';
  return `${file.path} is ${why}, so ${what} will not run: trust the workspace in VS Code, or review the file and run \`paddock allow --repo ${repo}\`.`;
}
