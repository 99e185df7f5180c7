/**
 * `paddock cleanup ID`: stop the agent, save its work (snapshot ref + patch),
 * remove its worktree, and delete its branch when nothing would be lost (or
 * when --delete-branch says so). Destructive, so it asks on a terminal.
 */
import { createInterface } from 'node:readline';
import { failure, usageError } from '../../core/common/errors';
import { printable } from '../../core/common/printable';
import type { CliCommand, CliContext } from '../command';
import { expectPositionals, parseCommandArgs } from '../support/args';
import { jobJson, printJson } from '../support/json';
import { openStore, withCoordinator } from '../support/session';

const usage = 'paddock cleanup ID [--delete-branch] [--yes] [--json]';

async function confirm(ctx: CliContext, question: string): Promise<boolean> {
  const rl = createInterface({ input: ctx.io.stdin, output: ctx.io.stderr, terminal: false });
  try {
    ctx.io.stderr.write(`${question} [y/N] `);
    const answer = await new Promise<string>((resolve) => {
      rl.once('line', resolve);
      rl.once('close', () => resolve(''));
    });
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

export const cleanupCommand: CliCommand = {
  name: 'cleanup',
  usage,
  summary: 'Stop an agent, save its work, and remove its worktree (and its branch when merged).',
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(
      argv,
      { 'delete-branch': { type: 'boolean' }, yes: { type: 'boolean' }, json: { type: 'boolean' } },
      usage,
    );
    const [id] = expectPositionals(positionals, ['ID'], usage);
    const deleteBranch = values['delete-branch'] === true;
    const job = await openStore(ctx).read(id); // bad or unknown ids fail before any question
    if (!values.yes) {
      if (!ctx.io.stdin.isTTY) {
        throw usageError(`Cleanup removes agent ${id}'s worktree${deleteBranch ? ' and branch' : ''}; pass --yes to confirm when not on a terminal.`);
      }
      const what = deleteBranch ? 'its worktree and branch (even with unmerged commits)' : 'its worktree (the branch stays if it has unmerged commits)';
      const running = ['queued', 'completed', 'failed', 'cancelled', 'orphaned'].includes(job.lifecycle.state) ? '' : 'stop it, ';
      if (!(await confirm(ctx, `Clean up agent ${id} (${printable(job.title)})? This will ${running}save its work to refs/paddock/snapshots/${id} and remove ${what}.`))) {
        ctx.io.stderr.write('Nothing was changed.\n');
        return 1;
      }
    }
    const report = await withCoordinator(ctx, (c) => c.cleanup(id, { deleteBranch }));
    const cleanup = report.job.cleanup!;
    if (values.json) printJson(ctx.io.stdout, jobJson(report.job));
    if (cleanup.phase !== 'complete') {
      throw failure(`Cleanup of agent ${id} is incomplete at ${cleanup.stage ?? 'an unknown stage'}: ${cleanup.lastError ?? 'unknown error'}; it will be retried.`);
    }
    if (!values.json) {
      const notes = report.alreadyComplete ? ['it was already cleaned up'] : report.notes;
      ctx.io.stdout.write(`Cleaned up agent ${id}: ${printable(notes.join('; ')) || 'nothing was left'}.\n`);
    }
    return 0;
  },
};
