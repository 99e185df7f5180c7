/** `paddock pr ID`: push the agent's branch (never forced) and open a pull request (gh), or print the compare page. */
import { printable } from '../../core/common/printable';
import { defineCommand } from '../support/args';
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
    const report = await withCoordinator(ctx, (c) =>
      withLandingChoices(ctx, choices, (chosen) => c.pullRequest(id, { ...chosen, remote: values.remote, draft: values.draft === true, title: values.title })),
    );
    if (values.json) {
      printJson(ctx.io.stdout, jobJson(report.job));
      return 0;
    }
    if (report.earlier) {
      // The kill came after the push: the branch is on the remote, and only the record was missing.
      const where = report.url ? `; its compare page: ${printable(report.url)}` : '';
      ctx.io.stdout.write(`Agent ${id}: ${printable(report.job.branch ?? '')} was already pushed to ${printable(report.remote)} by a pull request stopped before it was recorded, and ${printable(report.remote)}/${printable(report.base)} has every commit of it now; recorded now${where}.\n`);
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
