/** `paddock show ID`: one agent in full. */
import { hasStanding, StandingCache, standingWords, type Standing } from '../../core/git';
import type { JobRecord } from '../../core/store/schema';
import { defineCommand } from '../support/args';
import { formatDetails } from '../support/format';
import { jobJson, printJson } from '../support/json';
import { openStore } from '../support/store';
import { launchStranded } from '../support/strandedLaunches';
import { withFreshUsage } from '../support/usage';
import type { Suspension } from '../../core/store/suspension';
import { storeSuspensions } from '../../core/operations/suspensions';

export const showCommand = defineCommand({
  name: 'show',
  usage: 'paddock show ID [--json]',
  summary: 'Show one agent: state, worktree, cleanup and saved evidence.',
  options: { json: { type: 'boolean' } },
  positionals: ['ID'],
  async run({ values, positionals: [id] }, ctx) {
    const store = openStore(ctx);
    const read = await store.read(id);
    await launchStranded(ctx, store, [read]);
    const job = (await withFreshUsage(store, [read], ctx)).get(id) ?? read;
    const [standing, suspended] = await Promise.all([standingOf(job), storeSuspensions(store, [job]).catch(() => new Map<string, Suspension>())]);
    const suspension = suspended.get(job.id);
    if (values.json) printJson(ctx.io.stdout, { ...jobJson(job, suspension), standing: standing ?? null });
    else ctx.io.stdout.write(`${formatDetails(job, standingWords(job, standing), suspension)}\n`);
    return 0;
  },
});

/** Where the agent's work stands against its base, when its worktree is there to ask (never fails the command). */
async function standingOf(job: JobRecord): Promise<Standing | undefined> {
  if (!hasStanding(job)) return undefined;
  const cache = new StandingCache();
  await cache.refresh([job]);
  return cache.get(job.id);
}
