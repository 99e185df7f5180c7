/**
 * What a start decides about worktree setup, before anything is created: the
 * repository's `.paddock.json` merged under the person's settings, and — when
 * a command in force comes from that file — whether it may run. An untrusted
 * file makes the start refuse (one sentence saying how to allow it) rather
 * than start an agent without the setup it expects.
 */
import { readRepoConfig } from '../repoConfig/paddockJson';
import { trustedRepoCommands } from '../repoConfig/trustedCommands';
import { mergeWorktreeConfig, WorktreeConfig } from '../repoConfig/worktreeConfig';
import type { JobSettings } from '../store/schema';
import type { CoordinatorSettings } from './settings';

export async function planWorktreeSetup(repo: string, settings: CoordinatorSettings, home: string): Promise<WorktreeConfig> {
  const file = await readRepoConfig(repo);
  const config = mergeWorktreeConfig(file?.config ?? null, settings.worktree);
  if (config.fromFile.length > 0) await trustedRepoCommands(file, { home, trustedFolders: settings.trustedFolders }, config.fromFile);
  return config;
}

/** The part the record keeps (the launcher, the worker and cleanup read it from there). */
export function recordedWorktreeSettings(config: WorktreeConfig): JobSettings['worktree'] {
  if (config.copy.length === 0 && config.link.length === 0 && config.setup === null && config.teardown === null) return undefined;
  return { copy: config.copy, link: config.link, setup: config.setup, setupTimeoutSeconds: config.setupTimeoutSeconds, teardown: config.teardown };
}
