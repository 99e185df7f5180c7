/**
 * Entry point of the detached worker (bundled as dist/worker.js):
 *   node worker.js --home H --job ID --generation N [--node-pty PATH] [--gated]
 * Its stdout/stderr go to jobs/<id>/worker.log. SIGHUP is ignored (the
 * window that started it may close); SIGTERM means "stop the agent".
 * `--gated`: wait for the launcher's `go` on stdin first (launchGate.ts).
 */
import { parseArgs } from 'node:util';
import { describeError } from '../common/errors';
import { AgentWorker } from './agentWorker';
import { awaitLaunchGate } from './launchGate';
import { loadNodePty } from './ptyHost';
import { loadLockModules } from '../store/lockfileModule';

function log(message: string): void {
  process.stderr.write(`${new Date().toISOString()} [worker ${process.pid}] ${message}\n`);
}

/**
 * A line the log could not take (its disk full, an I/O error) is dropped; the worker goes on, and logs
 * again once it can. Unheard, each failed write was an 'error' on stderr, so an uncaught exception,
 * whose handler logged it: another failed write, for as long as the disk stayed full.
 */
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      home: { type: 'string' },
      job: { type: 'string' },
      generation: { type: 'string' },
      'node-pty': { type: 'string' },
      gated: { type: 'boolean' },
    },
    strict: true,
  });
  const generation = Number(values.generation);
  if (!values.home || !values.job || !Number.isInteger(generation) || generation < 1) {
    log('usage: worker --home H --job ID --generation N [--node-pty PATH] [--gated]');
    return 2;
  }
  process.on('SIGHUP', () => log('ignoring SIGHUP'));
  const worker = new AgentWorker({
    home: values.home,
    jobId: values.job,
    generation,
    nodePtyPath: values['node-pty'],
    env: process.env,
    log,
  });
  let started = false;
  let stopRequested = false;
  const stop = () => worker.terminate().catch((err) => log(`stop failed: ${describeError(err)}`));
  process.on('SIGTERM', () => {
    log('SIGTERM: stopping the agent');
    // During start-up there is nothing to stop yet: stop as soon as the agent runs.
    if (started || worker.acceptsStop) void stop();
    else stopRequested = true;
  });
  process.on('uncaughtException', (err) => log(`uncaught: ${err.stack ?? err.message}`));
  process.on('unhandledRejection', (err) => log(`unhandled rejection: ${describeError(err)}`));
  if (values.gated) {
    // While the launcher's git checks the worktree out: load the native module now (a failure is reported by start()),
    // and the lock modules the claim takes its locks with (proper-lockfile and the private fs it is given).
    try {
      loadNodePty(values['node-pty']);
    } catch {
      // start() loads it again and ends the job with the reason
    }
    loadLockModules();
    if (!(await awaitLaunchGate(process.stdin))) {
      log(`launch of agent ${values.job} called off before it began: exiting without touching it`);
      return 0;
    }
  }
  await worker.start();
  started = true;
  log(`serving agent ${values.job} generation ${generation}`);
  if (stopRequested) void stop();
  const code = await worker.finished;
  worker.dispose();
  return code;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    log(`worker failed: ${describeError(err)}`);
    process.exit(1);
  },
);
