/** `paddock pr ID`: push the agent's branch (never forced) and open a pull request (gh), or print the compare page. */
import { printable } from '../../core/common/printable';
import type { PullRequestReport } from '../../core/operations/pullRequest';
import { defineCommand } from '../support/args';
import { holdingInterrupts, interruptWord } from '../support/interrupts';
import { jobJson, printJson } from '../support/json';
import { choicesFrom, LANDING_CHOICE_OPTIONS, LANDING_CHOICE_USAGE, withLandingChoices } from '../support/landingChoices';
import { withCoordinator } from '../support/session';

export const prCommand = defineCommand({
  name: 'pr',
  usage: `paddock pr ID [--remote NAME] [--draft] [--title TEXT] ${LANDING_CHOICE_USAGE} [--json]`,
  summary: "Push an agent's branch and open a pull request (gh when logged in, else the host's compare page).",
  options: { remote: { type: 'string' }, draft: { type: 'boolean' }, title: { type: 'string' }, json: { type: 'boolean' }, ...LANDING_CHOICE_OPTIONS },
  positionals: ['ID'],
  async run({ values, positionals: [id], bad }, ctx) {
    const choices = choicesFrom(values, bad);
    // The first Ctrl-C (or a closed terminal) is held while the pull request runs, never while a
    // question waits: git and gh run in sessions of their own, which the interrupt does not reach, so
    // a push under way finishes and is recorded (or its failure written down), and none is begun after.
    const report = await withCoordinator(ctx, (c) =>
      withLandingChoices(ctx, choices, (chosen) =>
        holdingInterrupts(
          (signal) => ctx.io.stderr.write(`${interruptWord(signal)}: finishing the push under way and its record, or pushing nothing if none began (interrupt again to quit at once).\n`),
          (abort) => c.pullRequest(id, { ...chosen, remote: values.remote, draft: values.draft === true, title: values.title, abort }),
        ),
      ),
    );
    if (values.json) {
      printJson(ctx.io.stdout, jobJson(report.job));
      return 0;
    }
    if (report.earlier) {
      ctx.io.stdout.write(`${foundLaterWords(id, report)}\n`);
      return 0;
    }
    const pushed = `Pushed ${printable(report.job.branch ?? '')} to ${printable(report.remote)}`;
    if (report.opened) ctx.io.stdout.write(`${pushed}; pull request: ${printable(report.url ?? '')}\n`);
    else if (report.url) ctx.io.stdout.write(`${pushed}; open the pull request here: ${printable(report.url)}\n`);
    else ctx.io.stdout.write(`${pushed}; open a pull request into ${printable(report.base)} on your git host.\n`);
    if (report.ghNotUsed) ctx.io.stdout.write(`${printable(report.ghNotUsed)}\n`);
    return 0;
  },
});

/** The push came before the stop: the branch went to the remote, and only the record was missing. */
function foundLaterWords(id: string, report: PullRequestReport): string {
  const branch = printable(report.job.branch ?? '');
  const remote = printable(report.remote);
  const merged = report.baseHasIt ? `, and ${remote}/${printable(report.base)} has every commit of it now` : '';
  // Stopped before gh, the pull request may not be open: its compare page opens it.
  const where = report.url ? `; its compare page (to open the pull request if it is not open): ${printable(report.url)}` : '';
  return `Agent ${id}: ${branch} was already pushed to ${remote} by a pull request stopped before it was recorded${merged}; recorded now, not pushed again${where}.`;
}
