/** `paddock retry ID`: a new execution of an ended agent in its worktree. */
import { printable } from '../../core/common/printable';
import { defineCommand } from '../support/args';
import { reasonWords } from '../support/errorWords';
import { jobJson, printJson } from '../support/json';
import { ensureCoordinator, whoWill } from '../support/backgroundCoordinator';
import { startHoldingInterrupts } from '../support/interruptedStart';
import { openStore, withCoordinator } from '../support/session';

export const retryCommand = defineCommand({
  name: 'retry',
  usage: 'paddock retry ID [--json]',
  summary: 'Run an ended agent again in its worktree (a new generation).',
  options: { json: { type: 'boolean' } },
  positionals: ['ID'],
  async run({ values, positionals: [id] }, ctx) {
    // Damage found once the retry took effect is a warning: the agent was retried, and the status says so.
    const onWarning = (text: string) => ctx.io.stderr.write(`paddock retry: ${printable(reasonWords(text, ctx.env))}\n`);
    const { result: job, interruptedExit } = await withCoordinator(ctx, (c) => startHoldingInterrupts(ctx, c, () => c.retry(id, { onWarning }), (made) => [made]));
    if (interruptedExit !== undefined) return interruptedExit;
    if (values.json) printJson(ctx.io.stdout, jobJson(job));
    else ctx.io.stdout.write(`Agent ${job.id} is ${job.lifecycle.state} (generation ${job.lifecycle.generation}).\n`);
    if (job.lifecycle.state === 'queued') {
      const presence = await ensureCoordinator(ctx, openStore(ctx));
      if (!values.json) ctx.io.stderr.write(`It waits for a slot: ${whoWill(presence, 'start it when one frees up')}.\n`);
    }
    return 0;
  },
});
