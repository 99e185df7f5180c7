/**
 * `paddock allow [--repo DIR]`: trusts the exact content of the repository's
 * `.paddock.json`, so its commands (setup, teardown, check) may run for agents
 * started outside a trusted VS Code workspace (the way `direnv allow` does).
 * A changed file must be allowed again.
 */
import { describeError, usageError } from '../../core/common/errors';
import { printable } from '../../core/common/printable';
import { resolveRepoRoot } from '../../core/git';
import { PADDOCK_JSON, readRepoConfig } from '../../core/repoConfig/paddockJson';
import { RepoConfigTrust } from '../../core/repoConfig/trust';
import { JobStore } from '../../core/store';
import { defineCommand } from '../support/args';
import { bringChecksAfterAllow } from '../support/checksAfterAllow';

export const allowCommand = defineCommand({
  name: 'allow',
  usage: 'paddock allow [--repo DIR]',
  summary: 'Trust this exact .paddock.json, so its setup, teardown and check commands may run.',
  options: { repo: { type: 'string' } },
  positionals: [],
  folders: ['repo'],
  async run({ values }, ctx) {
    let repo: string;
    try {
      repo = await resolveRepoRoot(values.repo ?? ctx.cwd);
    } catch (err) {
      throw usageError(describeError(err));
    }
    const file = await readRepoConfig(repo);
    if (!file) throw usageError(`${repo} has no ${PADDOCK_JSON} to allow.`);
    const setAside = await new RepoConfigTrust(JobStore.defaultHome(ctx.env)).allow(file);
    // Said, not an error: the allow is done; what was kept aside is named for the person to look at.
    if (setAside) ctx.io.stderr.write(`paddock allow: ${printable(setAside)}\n`);
    const { setup, teardown, check } = file.config;
    const commands = Object.entries({ setup, teardown, check }).filter(([, c]) => c !== undefined);
    ctx.io.stdout.write(`Allowed ${printable(file.path)}${commands.length ? ':' : ' (it has no commands).'}\n`);
    for (const [name, command] of commands) ctx.io.stdout.write(`  ${name}: ${printable(command!)}\n`);
    // The allow is done whatever happens next: a failure to bring the checks is said, not an error.
    const brought = await bringChecksAfterAllow(ctx, repo).catch((err: unknown) => `The checks waiting for it were not started: ${describeError(err)}.`);
    if (brought) ctx.io.stdout.write(`${printable(brought)}\n`);
    return 0;
  },
});
