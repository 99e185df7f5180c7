/** `paddock list`: every agent in the store, oldest first. */
import { describeError, usageError } from '../../core/common/errors';
import type { JobEntry } from '../../core/store';
import { defineCommand } from '../support/args';
import { entryJson, printJson } from '../support/json';
import { openStore } from '../support/store';
import { formatRow, HEADER } from '../support/format';
import { launchStranded } from '../support/strandedLaunches';
import { entriesWithFreshUsage } from '../support/usage';
import type { Suspension } from '../../core/store/suspension';
import { storeSuspensions } from '../../core/operations/suspensions';

export const listCommand = defineCommand({
  name: 'list',
  usage: 'paddock list [--json] [--repo DIR]',
  summary: 'List agents with their state and cleanup status.',
  options: { json: { type: 'boolean' }, repo: { type: 'string' } },
  positionals: [],
  folders: ['repo'],
  async run({ values }, ctx) {
    let repo: string | undefined;
    if (values.repo !== undefined) {
      try {
        // Only --repo needs git: the plain listing loads no child-process code.
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const { resolveRepoRoot } = require('../../core/git') as typeof import('../../core/git');
        repo = await resolveRepoRoot(values.repo);
      } catch (err) {
        throw usageError(describeError(err));
      }
    }
    const store = openStore(ctx);
    const all = await store.list();
    // Before the filter: a queued agent of another repository is stranded all the same.
    await launchStranded(ctx, store, all.flatMap((e) => (e.ok ? [e.job] : [])));
    const listed = all.filter((e) => repo === undefined || (e.ok && e.job.repo === repo)).sort(byCreation);
    // Someone looks: the figures (CPU, memory, disk, tokens) are sampled now.
    const entries = await entriesWithFreshUsage(store, listed, ctx);
    // Read after the records: a worker or agent stopped now is said beside the state they record.
    // A failed look at the processes (a `ps` that failed) shows nobody suspended: the listing itself goes on.
    const suspended = await storeSuspensions(store, entries.flatMap((e) => (e.ok ? [e.job] : []))).catch(() => new Map<string, Suspension>());
    if (values.json) {
      printJson(ctx.io.stdout, entries.map((e) => entryJson(e, suspended.get(e.id))));
      return 0;
    }
    if (entries.length === 0) {
      ctx.io.stdout.write('No agents.\n');
      return 0;
    }
    ctx.io.stdout.write(`${HEADER}\n`);
    for (const entry of entries) ctx.io.stdout.write(`${formatRow(entry, Date.now(), suspended.get(entry.id))}\n`);
    return 0;
  },
});

function byCreation(a: JobEntry, b: JobEntry): number {
  const ka = a.ok ? a.job.createdAt : '';
  const kb = b.ok ? b.job.createdAt : '';
  if (ka !== kb) return ka < kb ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
