/**
 * Ctrl-C (or a closed terminal) while `start` or `retry` makes an agent used to
 * kill the CLI wherever it was: between the record and the launch, the agent
 * was left `queued` or `starting` with nobody to launch it or say it failed
 * (no window open: for good, holding a slot), or it ran on while the person,
 * who had asked to abort, never got its id. Instead, the first interrupt lets
 * the operation finish (it takes about a second), then what it made is
 * stopped — the person asked not to have it — and the command says so and
 * exits 130. A second interrupt ends the CLI at once, as before.
 */
import { describeError } from '../../core/common/errors';
import type { Coordinator } from '../../core/coordinator';
import type { JobRecord } from '../../core/store';
import type { CliContext } from '../command';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const EXIT_INTERRUPTED = 130;

/**
 * Runs `operation` (in `c`) with interrupts held; returns its result, and when an interrupt came,
 * stops every agent `madeBy` names in the result and gives the exit status to use.
 */
export async function startHoldingInterrupts<T>(
  ctx: CliContext,
  c: Coordinator,
  operation: () => Promise<T>,
  madeBy: (result: T) => readonly JobRecord[],
): Promise<{ result: T; interruptedExit?: number }> {
  let interrupted = false;
  const release = () => {
    for (const s of SIGNALS) {
      process.removeListener(s, first);
      process.removeListener(s, second);
    }
  };
  // A second interrupt: let it do what it does by default (end the CLI).
  const second = (signal: NodeJS.Signals) => {
    release();
    process.kill(process.pid, signal);
  };
  const first = (signal: NodeJS.Signals) => {
    interrupted = true;
    for (const s of SIGNALS) {
      process.removeListener(s, first);
      process.on(s, second);
    }
    ctx.io.stderr.write(`${signal === 'SIGINT' ? 'Interrupted' : `Got ${signal}`}: finishing this step so nothing is left half-made, then stopping what it made (interrupt again to quit at once).\n`);
  };
  for (const s of SIGNALS) process.on(s, first);
  try {
    const result = await operation();
    if (!interrupted) return { result };
    for (const job of madeBy(result)) {
      try {
        const report = await c.stop(job.id);
        ctx.io.stderr.write(
          report.stopped
            ? `Agent ${job.id} was stopped because the command was interrupted (paddock retry ${job.id} runs it again; paddock cleanup ${job.id} removes it).\n`
            : `Agent ${job.id} could not be proven stopped after the interrupt: ${report.reason ?? 'unknown reason'}.\n`,
        );
      } catch (err) {
        ctx.io.stderr.write(`Agent ${job.id} could not be stopped after the interrupt: ${describeError(err)}.\n`);
      }
    }
    return { result, interruptedExit: EXIT_INTERRUPTED };
  } finally {
    release();
  }
}
