/**
 * The store named by PADDOCK_HOME (or the default). Kept apart from
 * `session.ts` so read-only commands (list, show) load the store alone, not the
 * coordinator and everything it pulls in.
 */
import { JobStore } from '../../core/store';
import type { CliContext } from '../command';

export function openStore(ctx: CliContext): JobStore {
  return new JobStore({ home: JobStore.defaultHome(ctx.env) });
}
