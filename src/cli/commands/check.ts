/** `paddock check ID`: runs the repository's check command in the agent's worktree, in the foreground; exit 0 passed, 1 failed. */
import { printableLines } from '../../core/attempts/compareReport';
import { errorWords } from '../support/errorWords';
import { defineCommand } from '../support/args';
import { EXIT_INTERRUPTED, holdingInterrupts, interruptWord } from '../support/interrupts';
import { withCoordinator } from '../support/session';

export const checkCommand = defineCommand({
  name: 'check',
  usage: 'paddock check ID',
  summary: "Run the repository's check command (paddock.checkCommand or .paddock.json \"check\") in the agent's worktree; exit 0 if it passes.",
  options: {},
  positionals: ['ID'],
  async run({ positionals: [id] }, ctx) {
    let interrupted = false;
    // A Ctrl-C ends the check with everything it started (it runs in a session of its own, which the
    // terminal's interrupt does not reach), and records it failed, before the command exits.
    const check = await holdingInterrupts(
      (signal) => {
        interrupted = true;
        ctx.io.stderr.write(`${interruptWord(signal)}: ending the check and everything it started (interrupt again to quit at once).\n`);
      },
      (abort) =>
        withCoordinator(ctx, (c) =>
          c.check(id, { abort, onWaiting: () => ctx.io.stderr.write(`paddock check: every capacity slot is taken; waiting for one.\n`) }),
        ),
    ).catch((err: unknown) => {
      if (!interrupted) throw err;
      ctx.io.stderr.write(`paddock check: ${errorWords(err, ctx.env)}\n`);
      return null;
    });
    if (check === null) return EXIT_INTERRUPTED;
    if (check.summary) ctx.io.stdout.write(`${printableLines(check.summary)}\n`);
    if (interrupted) return EXIT_INTERRUPTED;
    const seconds = check.durationMs === null ? '' : ` in ${Math.round(check.durationMs / 1000)} s`;
    if (check.state === 'passed') {
      ctx.io.stdout.write(`check passed${seconds}\n`);
      return 0;
    }
    ctx.io.stderr.write(`paddock check: the check failed${check.exitCode !== null ? ` (exit ${check.exitCode})` : ''}${seconds}.\n`);
    return 1;
  },
});
