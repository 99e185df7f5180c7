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

const usage = 'paddock cleanup ID [--delete-branch] [--anyway] [--regenerable GLOB]... [--archive-limit MB] [--yes] [--json]';

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
      {
        'delete-branch': { type: 'boolean' },
        anyway: { type: 'boolean' },
        regenerable: { type: 'string', multiple: true },
        'archive-limit': { type: 'string' },
        yes: { type: 'boolean' },
        json: { type: 'boolean' },
      },
      usage,
    );
    const [id] = expectPositionals(positionals, ['ID'], usage);
    const deleteBranch = values['delete-branch'] === true;
    const anyway = values.anyway === true;
    const regenerable = values.regenerable as unknown as string[] | undefined;
    const limitText = values['archive-limit'];
    const archiveLimitMB = limitText === undefined ? undefined : Number(limitText);
    if (archiveLimitMB !== undefined && !(Number.isFinite(archiveLimitMB) && archiveLimitMB >= 0)) {
      throw usageError(`--archive-limit takes a size in MB (a number, 0 or more), not '${limitText}'; usage: ${usage}`);
    }
    const job = await openStore(ctx).read(id); // bad or unknown ids fail before any question
    if (!values.yes) {
      if (!ctx.io.stdin.isTTY) {
        throw usageError(`Cleanup removes agent ${id}'s worktree${deleteBranch ? ' and branch' : ''}; pass --yes to confirm when not on a terminal.`);
      }
      const what = deleteBranch ? 'its worktree and branch (even with unmerged commits)' : 'its worktree (the branch stays if it has unmerged commits)';
      const running = ['queued', 'completed', 'failed', 'cancelled', 'orphaned'].includes(job.lifecycle.state) ? '' : 'stop it, ';
      const dropping = anyway ? ` Files that cannot be archived (${printable(job.cleanup?.lastError ?? 'over the archive limit or unreadable')}) will be LOST.` : '';
      if (!(await confirm(ctx, `Clean up agent ${id} (${printable(job.title)})? This will ${running}save its work to refs/paddock/snapshots/${id} (ignored files and nested repositories to an archive) and remove ${what}.${dropping}`))) {
        ctx.io.stderr.write('Nothing was changed.\n');
        return 1;
      }
    }
    const report = await withCoordinator(ctx, (c) => c.cleanup(id, { deleteBranch, dropUnarchivable: anyway, regenerable, archiveLimitMB }));
    const cleanup = report.job.cleanup!;
    if (values.json) printJson(ctx.io.stdout, jobJson(report.job));
    // The recorded error is a sentence of its own: its full stop would end this one half-way.
    const why = cleanup.lastError?.replace(/\.$/, '');
    if (cleanup.awaitingConsent) {
      throw failure(`Cleanup of agent ${id} stopped before removing anything: ${why ?? 'something would be lost'} (paddock cleanup ${id} --anyway)`);
    }
    if (cleanup.phase !== 'complete') {
      throw failure(`Cleanup of agent ${id} is incomplete at ${cleanup.stage ?? 'an unknown stage'}: ${why ?? 'unknown error'}; it will be retried.`);
    }
    if (!values.json) {
      const notes = report.alreadyComplete ? ['it was already cleaned up'] : report.notes;
      ctx.io.stdout.write(`Cleaned up agent ${id}: ${printable(notes.join('; ')) || 'nothing was left'}.\n`);
    }
    return 0;
  },
};
