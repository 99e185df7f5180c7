/**
 * What every CLI command needs: the store named by PADDOCK_HOME (or the
 * default), and a coordinator without a loop for one-shot operations. The
 * worker bundle sits next to the CLI bundle (dist/worker.js beside dist/cli.js).
 */
import { existsSync } from 'node:fs';
import { workerBundlePath } from '../../core/common/bundles';
import { describeError, failure } from '../../core/common/errors';
import { printable } from '../../core/common/printable';
import { Coordinator } from '../../core/coordinator';
import type { CliContext } from '../command';
import { openStore } from './store';
import { launchStranded } from './strandedLaunches';

export { openStore };

/** The worker bundle, which must exist. */
export function workerScriptPath(env: NodeJS.ProcessEnv): string {
  const script = workerBundlePath(env);
  if (!existsSync(script)) throw failure(`The Paddock worker is missing at ${script}; reinstall or run npm run build.`);
  return script;
}

function debugLog(ctx: CliContext): ((message: string) => void) | undefined {
  if (!ctx.env.PADDOCK_DEBUG) return undefined;
  return (message) => ctx.io.stderr.write(`paddock: ${printable(message)}\n`);
}

/** A coordinator for one operation: no loop, no watcher; it leads only while launching. */
export function openCoordinator(ctx: CliContext, store = openStore(ctx)): Coordinator {
  return new Coordinator({
    store,
    workerScript: workerScriptPath(ctx.env),
    env: ctx.env,
    tickMs: 0,
    watch: false,
    log: debugLog(ctx),
  });
}

/**
 * Runs `fn` with a one-shot coordinator and always releases what it took (the leadership lease).
 * When its operation freed a slot or let go of a queued agent (a stop, a cleanup, a check that
 * ended), the CLI launches nothing in its foreground: it starts the detached background coordinator
 * when an agent waits with no coordinator leading, as `start` does (bug 220), saying so on stderr.
 */
export function withCoordinator<T>(ctx: CliContext, fn: (c: Coordinator) => Promise<T>): Promise<T> {
  return asOneCommand(ctx, openCoordinator(ctx), fn);
}

/** `withCoordinator` with the one-shot coordinator given (tests give theirs settings). */
export async function asOneCommand<T>(ctx: CliContext, coordinator: Coordinator, fn: (c: Coordinator) => Promise<T>): Promise<T> {
  try {
    return await fn(coordinator);
  } finally {
    coordinator.dispose();
    await coordinator.whenIdle();
    if (coordinator.queueLeft) await leaveQueueToCoordinator(ctx);
  }
}

/** Never fails the command: its own outcome is what the person is told. */
async function leaveQueueToCoordinator(ctx: CliContext): Promise<void> {
  try {
    // Without waiting for a record's lock: a look that records a gone worker waited its 20 s on a full or
    // read-only store, after the stop that frees the disk had done its work (bug 141's 15 s). What it could
    // not record is still judged, and the background coordinator records it.
    const store = openStore(ctx).withoutLockWait();
    await launchStranded(ctx, store, (await store.list()).flatMap((e) => (e.ok ? [e.job] : [])));
  } catch (err) {
    ctx.io.stderr.write(`paddock: could not look for agents waiting for a slot: ${printable(describeError(err, 200))}\n`);
  }
}
