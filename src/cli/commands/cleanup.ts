/**
 * `paddock cleanup ID`: stop the agent, save its work (snapshot ref + patch),
 * remove its worktree, and delete its branch when nothing would be lost (or
 * when --delete-branch says so). Destructive, so it asks on a terminal.
 */
import { createInterface } from 'node:readline';
import { failure, usageError } from '../../core/common/errors';
import { printable } from '../../core/common/printable';
import { cleanupShortfall } from '../../core/operations/cleanupOutcome';
import { outsideConfirmLines, outsideWorktreesNow } from '../../core/operations/cleanupConfirm';
import { isTerminalState } from '../../core/store/schema';
import type { CliContext } from '../command';
import { defineCommand, plainDecimal } from '../support/args';
import { reasonWords } from '../support/errorWords';
import { jobJson, printJson } from '../support/json';
import { ensureCoordinator, whoWill } from '../support/backgroundCoordinator';
import { EXIT_INTERRUPTED, holdingInterrupts, interruptWord } from '../support/interrupts';
import { openStore, withCoordinator } from '../support/session';

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

export const cleanupCommand = defineCommand({
  name: 'cleanup',
  usage: 'paddock cleanup ID [--delete-branch] [--anyway] [--regenerable GLOB]... [--archive-limit MB] [--yes] [--json]',
  summary: 'Stop an agent, save its work, and remove its worktree (and its branch when merged).',
  options: {
    'delete-branch': { type: 'boolean' },
    anyway: { type: 'boolean' },
    regenerable: { type: 'string', multiple: true },
    'archive-limit': { type: 'string' },
    yes: { type: 'boolean' },
    json: { type: 'boolean' },
  },
  positionals: ['ID'],
  async run({ values, positionals: [id], bad }, ctx) {
    const deleteBranch = values['delete-branch'] === true;
    const anyway = values.anyway === true;
    const regenerable = values.regenerable;
    const limitText = values['archive-limit'];
    const archiveLimitMB = limitText === undefined ? undefined : plainDecimal(limitText);
    if (limitText !== undefined && archiveLimitMB === undefined) {
      throw bad(`--archive-limit takes a size in MB (a number, 0 or more), not '${limitText}'`);
    }
    const job = await openStore(ctx).read(id); // bad or unknown ids fail before any question
    if (!values.yes) {
      if (!ctx.io.stdin.isTTY) {
        throw usageError(`Cleanup removes agent ${id}'s worktree${deleteBranch ? ' and branch' : ''}; pass --yes to confirm when not on a terminal.`);
      }
      const what = deleteBranch ? 'its worktree and branch (even with unmerged commits)' : 'its worktree (the branch stays if it has unmerged commits)';
      const running = job.lifecycle.state === 'queued' || isTerminalState(job.lifecycle.state) ? '' : 'stop it, ';
      // Only a capture waiting for consent named what would be lost; any other lastError (a teardown's) is not about files.
      const named = job.cleanup?.awaitingConsent ? job.cleanup.lastError : null;
      const dropping = anyway ? ` Files that cannot be archived (${printable(named ?? 'over the archive limit or unreadable')}) will be LOST.` : '';
      const teardown = job.settings.worktree?.teardown;
      const skipping = anyway && teardown && !job.cleanup?.teardownDone ? ` If its teardown (${printable(teardown)}) fails, it will be SKIPPED and what it should have stopped may keep running.` : '';
      // Named before the person agrees, as the window's modal does (core/operations/cleanupConfirm).
      // The look runs git in every nested repository and may take a while: said first, not a silent wait.
      ctx.io.stderr.write("Looking for linked worktrees outside the agent's worktree…\n");
      const outside = outsideConfirmLines(await outsideWorktreesNow(job.worktree), `paddock restore ${id}`);
      const breaking = outside.length === 0 ? '' : `\nKept, but git stops working there until paddock restore ${id}:\n${outside.join('\n')}\nClean up agent ${id}?`;
      if (!(await confirm(ctx, `Clean up agent ${id} (${printable(job.title)})? This will ${running}save its work to refs/paddock/snapshots/${id} (ignored files and nested repositories to an archive) and remove ${what}.${dropping}${skipping}${breaking}`))) {
        throw failure('Nothing was changed.');
      }
    }
    let interrupted = false;
    // A Ctrl-C ends a teardown command that runs (in a session of its own, which the terminal's
    // interrupt does not reach); Paddock's own steps finish, so nothing is left half-done.
    const report = await holdingInterrupts(
      (signal) => {
        interrupted = true;
        ctx.io.stderr.write(`${interruptWord(signal)}: ending the teardown if one runs, and finishing this step so nothing is left half-done (interrupt again to quit at once).\n`);
      },
      (abort) => withCoordinator(ctx, (c) => c.cleanup(id, { deleteBranch, dropUnarchivable: anyway, regenerable, archiveLimitMB, abort })),
    );
    if (values.json) printJson(ctx.io.stdout, jobJson(report.job));
    const shortfall = cleanupShortfall(report.job.cleanup, `agent ${id}`);
    // An interrupt that ended a teardown leaves the cleanup short of complete; one that came after the
    // teardown changed nothing (Paddock's own steps finish), and the cleanup is reported as any other.
    if (interrupted && shortfall) {
      ctx.io.stderr.write(`paddock cleanup: ${printable(reasonWords(shortfall.sentence, ctx.env))}.\n`);
      return EXIT_INTERRUPTED;
    }
    if (shortfall?.kind === 'awaiting-consent') throw failure(`${shortfall.sentence} (paddock cleanup ${id} --anyway)`);
    if (shortfall) {
      const presence = await ensureCoordinator(ctx, openStore(ctx));
      throw failure(`${shortfall.sentence}; ${whoWill(presence, 'retry it')}.`);
    }
    if (!values.json) {
      const notes = report.alreadyComplete ? ['it was already cleaned up'] : report.notes;
      ctx.io.stdout.write(`Cleaned up agent ${id}: ${printable(notes.join('; ')) || 'nothing was left'}.\n`);
    }
    return 0;
  },
});
