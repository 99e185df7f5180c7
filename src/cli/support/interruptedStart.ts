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
import { errorWords } from './errorWords';
import type { Coordinator } from '../../core/coordinator';
import type { JobRecord } from '../../core/store';
import type { CliContext } from '../command';
import { EXIT_INTERRUPTED, holdingInterrupts, interruptWord } from './interrupts';

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
  const result = await holdingInterrupts(
    (signal) => {
      interrupted = true;
      ctx.io.stderr.write(`${interruptWord(signal)}: finishing this step so nothing is left half-made, then stopping what it made (interrupt again to quit at once).\n`);
    },
    async () => {
      const made = await operation();
      // Still held while what it made is stopped: a second interrupt quits at once.
      if (interrupted) await stopAfterInterrupt(ctx, c, madeBy(made));
      return made;
    },
  );
  return interrupted ? { result, interruptedExit: EXIT_INTERRUPTED } : { result };
}

/**
 * The queued ones first: a stop of a running one frees a slot, and a coordinator (a window's, or the
 * background one) would launch the next queued attempt of this very start before its own stop came.
 */
async function stopAfterInterrupt(ctx: CliContext, c: Coordinator, jobs: readonly JobRecord[]): Promise<void> {
  // As they are now (one may have launched since it was made); unreadable: as it was made.
  const now = new Map((await c.list().catch(() => [])).flatMap((e) => (e.ok ? [[e.job.id, e.job.lifecycle.state] as const] : [])));
  const queued = new Set(jobs.filter((j) => (now.get(j.id) ?? j.lifecycle.state) === 'queued').map((j) => j.id));
  for (const job of [...jobs.filter((j) => queued.has(j.id)), ...jobs.filter((j) => !queued.has(j.id))]) {
    try {
      const report = await c.stop(job.id);
      ctx.io.stderr.write(
        report.stopped
          ? `Agent ${job.id} was stopped because the command was interrupted (paddock retry ${job.id} runs it again; paddock cleanup ${job.id} removes it).\n`
          : `Agent ${job.id} could not be proven stopped after the interrupt: ${report.reason ?? 'unknown reason'}.\n`,
      );
    } catch (err) {
      ctx.io.stderr.write(`Agent ${job.id} could not be stopped after the interrupt: ${errorWords(err, ctx.env)}.\n`);
    }
  }
}
