/**
 * `paddock allow` brings the automatic checks it made runnable. An attempt whose check command was
 * untrusted had nothing to run: no coordinator was started for it, and a leader that found so does
 * not look again until a pass, which only a change to some record brings (nothing watches the allow
 * list or `.paddock.json`). An allow alone left the check unrun until something else happened.
 */
import { existsSync } from 'node:fs';
import { checksDue } from '../../core/scheduler/checksDue';
import { JobStore } from '../../core/store';
import type { CliContext } from '../command';
import { ensureCoordinator, whoWill } from './backgroundCoordinator';
import { openStore } from './store';

/** The sentence to print: who runs the checks now due in `repo` (none due: undefined). */
export async function bringChecksAfterAllow(ctx: CliContext, repo: string): Promise<string | undefined> {
  // No store yet: no agent, nothing to check (and none made here).
  if (!existsSync(JobStore.defaultHome(ctx.env))) return undefined;
  const store = openStore(ctx);
  const jobs = (await store.list()).flatMap((e) => (e.ok ? [e.job] : []));
  const due = await checksDue(jobs.filter((j) => j.repo === repo), { home: store.home });
  if (due.length === 0) return undefined;
  // A leader that found them untrusted looks again on a pass: a signal per attempt brings one.
  for (const id of due) store.signalChange(id);
  const presence = await ensureCoordinator(ctx, store, jobs);
  return `${due.length === 1 ? 'The check of 1 attempt' : `The checks of ${due.length} attempts`} waiting for it: ${whoWill(presence, 'run them')}.`;
}
