/**
 * `paddock coordinate`: the coordinator loop without VS Code — launches queued
 * agents as slots free up and retries failed cleanups — until SIGINT/SIGTERM.
 * Any number may run; one leads at a time, the others wait to take over.
 */
import { printable } from '../../core/common/printable';
import { Coordinator } from '../../core/coordinator';
import { defineCommand } from '../support/args';
import { openStore, workerScriptPath } from '../support/session';

export const coordinateCommand = defineCommand({
  name: 'coordinate',
  usage: 'paddock coordinate',
  summary: 'Run the coordinator loop (queue, cleanup retries) until interrupted.',
  options: {},
  positionals: [],
  async run(_args, ctx) {
    const store = openStore(ctx);
    const log = (message: string) => ctx.io.stderr.write(`${new Date().toISOString()} ${printable(message)}\n`);
    const coordinator = new Coordinator({ store, workerScript: workerScriptPath(ctx.env), env: ctx.env, log });
    coordinator.onDidChangeCapacityBlock((e) => {
      if (e.blockedBy.length === 0) log('capacity is no longer blocked by incomplete cleanups');
    });
    log(`coordinating ${store.home} (pid ${process.pid}); Ctrl-C to stop`);
    // The coordinator's own timers do not hold the process open (they are unref'd for the extension host).
    const keepAlive = setInterval(() => undefined, 1 << 30);
    const signal = await new Promise<NodeJS.Signals>((resolve) => {
      process.once('SIGINT', () => resolve('SIGINT'));
      process.once('SIGTERM', () => resolve('SIGTERM'));
    });
    clearInterval(keepAlive);
    log(`${signal}: stopping the coordinator (agents keep running)`);
    coordinator.dispose();
    await coordinator.whenIdle();
    return 0;
  },
});
