/**
 * `paddock start`: a new agent in its own worktree; prints its id (or its record with --json).
 * With `--attempts N`: N agents on the same task, one group; profiles (`--profile`, repeatable)
 * are dealt round-robin; one id per line (all records as a JSON array with --json).
 */
import { MAX_ATTEMPTS } from '../../core/attempts/attemptPlan';
import { setupFailed } from '../../core/operations/rules';
import { defineCommand } from '../support/args';
import { reasonWords } from '../support/errorWords';
import { jobJson, printJson } from '../support/json';
import { ensureCoordinator, whoWill } from '../support/backgroundCoordinator';
import { startHoldingInterrupts } from '../support/interruptedStart';
import { openStore, withCoordinator } from '../support/session';

export const startCommand = defineCommand({
  name: 'start',
  usage: 'paddock start [--repo DIR] [--title TEXT] [--base REF] [--profile NAME]... [--attempts N] [--prompt TEXT] [--auto-approve] [--json] [-- COMMAND [ARGS...]]',
  summary: 'Start an agent in a new worktree and branch (the profile’s command, or COMMAND); --attempts N starts N attempts as one group.',
  options: {
    repo: { type: 'string' },
    title: { type: 'string' },
    base: { type: 'string' },
    profile: { type: 'string', multiple: true },
    attempts: { type: 'string' },
    prompt: { type: 'string' },
    // The agent acts without asking (its profile's flag, e.g. claude --dangerously-skip-permissions).
    'auto-approve': { type: 'boolean' },
    json: { type: 'boolean' },
  },
  positionals: [],
  folders: ['repo'],
  rest: true,
  async run({ values, rest: command, bad }, ctx) {
    if (command !== undefined && command.length === 0) throw bad('No command after --');
    const profiles = values.profile ?? [];
    const request = { repo: values.repo ?? ctx.cwd, title: values.title, base: values.base, prompt: values.prompt, autoApprove: values['auto-approve'], command };
    if (values.attempts === undefined) {
      if (profiles.length > 1) throw bad('Several --profile options need --attempts');
      const { result: job, interruptedExit } = await withCoordinator(ctx, (c) =>
        startHoldingInterrupts(ctx, c, () => c.start({ ...request, profile: profiles[0] }), (made) => [made]),
      );
      if (interruptedExit !== undefined) return interruptedExit;
      if (values.json) printJson(ctx.io.stdout, jobJson(job));
      else ctx.io.stdout.write(`${job.id}\n`);
      // The agent was launched; its setup failed fast enough to be seen here (a slower failure shows in `list`).
      if (setupFailed(job) && !values.json) ctx.io.stderr.write(`Agent ${job.id}'s worktree setup failed (${job.lifecycle.detail}); its worktree is kept: paddock logs ${job.id} shows the setup's output, paddock retry ${job.id} runs it again.\n`);
      if (job.lifecycle.state === 'queued') {
        const presence = await ensureCoordinator(ctx, openStore(ctx));
        if (!values.json) ctx.io.stderr.write(`Agent ${job.id} is queued: ${whoWill(presence, 'start it when a slot frees up')}.\n`);
      }
      return 0;
    }
    if (!/^\d{1,3}$/.test(values.attempts)) throw bad(`--attempts takes a whole number from 1 to ${MAX_ATTEMPTS}, not '${values.attempts}'`);
    const { result, interruptedExit } = await withCoordinator(ctx, (c) =>
      startHoldingInterrupts(ctx, c, () => c.startAttempts(request, Number(values.attempts), profiles), (made) => made.jobs),
    );
    if (interruptedExit !== undefined) return interruptedExit;
    if (values.json) printJson(ctx.io.stdout, result.jobs.map((j) => jobJson(j)));
    else for (const job of result.jobs) ctx.io.stdout.write(`${job.id}\n`);
    // Queued attempts need launching, and each attempt's check runs when it ends: someone must lead.
    const presence = await ensureCoordinator(ctx, openStore(ctx));
    const queued = result.jobs.filter((j) => j.lifecycle.state === 'queued').length;
    if (queued > 0 && !values.json) ctx.io.stderr.write(`${queued} attempt${queued === 1 ? ' is' : 's are'} queued: ${whoWill(presence, 'start them as slots free up')}.\n`);
    for (const f of result.failed) ctx.io.stderr.write(`paddock start: attempt ${f.index} failed to start: ${reasonWords(f.reason, ctx.env)}\n`);
    return result.failed.length > 0 ? 1 : 0;
  },
});
