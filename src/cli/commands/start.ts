/** `paddock start`: a new agent in its own worktree; prints its id (or its record with --json). */
import { defineCommand } from '../support/args';
import { jobJson, printJson } from '../support/json';
import { ensureCoordinator, whoWill } from '../support/backgroundCoordinator';
import { openStore, withCoordinator } from '../support/session';

export const startCommand = defineCommand({
  name: 'start',
  usage: 'paddock start [--repo DIR] [--title TEXT] [--base REF] [--profile NAME] [--prompt TEXT] [--auto-approve] [--json] [-- COMMAND [ARGS...]]',
  summary: 'Start an agent in a new worktree and branch (the profile’s command, or COMMAND).',
  options: {
    repo: { type: 'string' },
    title: { type: 'string' },
    base: { type: 'string' },
    profile: { type: 'string' },
    prompt: { type: 'string' },
    // The agent acts without asking (its profile's flag, e.g. claude --dangerously-skip-permissions).
    'auto-approve': { type: 'boolean' },
    json: { type: 'boolean' },
  },
  positionals: [],
  rest: true,
  async run({ values, rest: command, bad }, ctx) {
    if (command !== undefined && command.length === 0) throw bad('No command after --');
    const job = await withCoordinator(ctx, (c) =>
      c.start({
        repo: values.repo ?? ctx.cwd,
        title: values.title,
        base: values.base,
        profile: values.profile,
        prompt: values.prompt,
        autoApprove: values['auto-approve'],
        command,
      }),
    );
    if (values.json) printJson(ctx.io.stdout, jobJson(job));
    else ctx.io.stdout.write(`${job.id}\n`);
    if (job.lifecycle.state === 'queued') {
      const presence = await ensureCoordinator(ctx, openStore(ctx));
      if (!values.json) ctx.io.stderr.write(`Agent ${job.id} is queued: ${whoWill(presence, 'start it when a slot frees up')}.\n`);
    }
    return 0;
  },
});
