/** `paddock check ID`: runs the repository's check command in the agent's worktree, in the foreground; exit 0 passed, 1 failed. */
import { printableLines } from '../../core/attempts/compareReport';
import { defineCommand } from '../support/args';
import { withCoordinator } from '../support/session';

export const checkCommand = defineCommand({
  name: 'check',
  usage: 'paddock check ID',
  summary: "Run the repository's check command (paddock.checkCommand or .paddock.json \"check\") in the agent's worktree; exit 0 if it passes.",
  options: {},
  positionals: ['ID'],
  async run({ positionals: [id] }, ctx) {
    const check = await withCoordinator(ctx, (c) =>
      c.check(id, { onWaiting: () => ctx.io.stderr.write(`paddock check: every capacity slot is taken; waiting for one.\n`) }),
    );
    if (check.summary) ctx.io.stdout.write(`${printableLines(check.summary)}\n`);
    const seconds = check.durationMs === null ? '' : ` in ${Math.round(check.durationMs / 1000)} s`;
    if (check.state === 'passed') {
      ctx.io.stdout.write(`check passed${seconds}\n`);
      return 0;
    }
    ctx.io.stderr.write(`paddock check: the check failed${check.exitCode !== null ? ` (exit ${check.exitCode})` : ''}${seconds}.\n`);
    return 1;
  },
});
