/** `paddock merge ID`: land the agent's branch on its base (or --into BRANCH): merge (--ff / --no-ff over git's merge.ff), --squash, --rebase or --ff-only. */
import { printable } from '../../core/common/printable';
import type { LandStrategy } from '../../core/git';
import { defineCommand } from '../support/args';
import { jobJson, printJson } from '../support/json';
import { choicesFrom, LANDING_CHOICE_OPTIONS, LANDING_CHOICE_USAGE, withLandingChoices } from '../support/landingChoices';
import { withCoordinator } from '../support/session';

const WORDS = { ff: 'fast-forwarded', merge: 'merged', squash: 'squashed', rebase: 'rebased' } as const;

export const mergeCommand = defineCommand({
  name: 'merge',
  usage: `paddock merge ID [--into BRANCH] [--squash|--rebase|--ff-only|--no-ff|--ff] [--message TEXT] ${LANDING_CHOICE_USAGE} [--json]`,
  summary: "Land an agent's branch on its base (or --into BRANCH); on a conflict nothing changes.",
  options: {
    into: { type: 'string' },
    squash: { type: 'boolean' },
    rebase: { type: 'boolean' },
    'ff-only': { type: 'boolean' },
    'no-ff': { type: 'boolean' },
    ff: { type: 'boolean' },
    message: { type: 'string' },
    json: { type: 'boolean' },
    ...LANDING_CHOICE_OPTIONS,
  },
  positionals: ['ID'],
  async run({ values, positionals: [id], bad }, ctx) {
    const picked = (['squash', 'rebase', 'ff-only', 'no-ff', 'ff'] as const).filter((k) => values[k]);
    if (picked.length > 1) throw bad(`--${picked.join(' and --')} exclude each other`);
    // --no-ff and --ff are a plain merge's, as for git merge: a merge commit always, or a fast-forward where it can, whatever merge.ff says.
    const fastForward = picked[0] === 'no-ff' ? 'never' : picked[0] === 'ff' ? 'allow' : undefined;
    const strategy: LandStrategy = picked[0] === undefined || fastForward !== undefined ? 'merge' : (picked[0] as LandStrategy);
    if (values.message !== undefined && (strategy === 'rebase' || strategy === 'ff-only')) throw bad(`--message applies to a merge or a squash, not --${strategy}`);
    const choices = choicesFrom(values, bad);
    const report = await withCoordinator(ctx, (c) =>
      withLandingChoices(ctx, choices, (chosen) => c.merge(id, { ...chosen, into: values.into, strategy, message: values.message, fastForward })),
    );
    if (values.json) printJson(ctx.io.stdout, jobJson(report.job));
    else if (report.earlier) {
      // The kill came after the target moved: the work is there, and only the record was missing.
      ctx.io.stdout.write(`Agent ${id}: ${printable(report.job.branch ?? '')} was already ${WORDS[report.kind]} into ${printable(report.into)} at ${report.commit.slice(0, 12)} by a landing stopped before it was recorded; recorded now.\n`);
    } else ctx.io.stdout.write(`Agent ${id}: ${WORDS[report.kind]} ${printable(report.job.branch ?? '')} into ${printable(report.into)} (now at ${report.commit.slice(0, 12)}).\n`);
    return 0;
  },
});
