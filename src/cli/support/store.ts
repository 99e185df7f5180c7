/**
 * The store named by PADDOCK_HOME (or the default). Kept apart from
 * `session.ts` so read-only commands (list, show) load the store alone, not the
 * coordinator and everything it pulls in.
 */
import { JobStore } from '../../core/store';
import type { CliContext } from '../command';

/** A CLI process has no event loop to keep responsive: it lists with synchronous reads, which are faster. */
export function openStore(ctx: CliContext): JobStore {
  return new JobStore({ home: JobStore.defaultHome(ctx.env), blockingReads: true });
}
