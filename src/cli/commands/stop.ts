/** `paddock stop ID [--force]`: ends the agent's whole process session and proves nothing of it is left. */
import { failure } from '../../core/common/errors';
import type { StopReport } from '../../core/coordinator';
import { defineCommand } from '../support/args';
import { withCoordinator } from '../support/session';

export const stopCommand = defineCommand({
  name: 'stop',
  usage: 'paddock stop ID [--force]',
  summary: 'Stop an agent: SIGTERM to its processes, SIGKILL after the grace (at once with --force).',
  options: { force: { type: 'boolean' } },
  positionals: ['ID'],
  async run({ values, positionals: [id] }, ctx) {
    // Through the coordinator: it takes the job's operation lock (no double stop from two
    // windows) and proves that no process of the agent is left.
    const report = await withCoordinator(ctx, (c) => c.stop(id, { force: values.force === true }));
    if (!report.stopped) throw failure(`Agent ${id} could not be proven stopped: ${report.reason ?? 'unknown reason'}.`);
    ctx.io.stdout.write(`${describeStop(report)}\n`);
    // Stopped, but the store could not be written: its record does not say so yet.
    const u = report.unwritable;
    if (u !== undefined) {
      const kept = u.kept === 'already' ? 'an earlier stop is kept in the runtime directory' : 'the stop is kept in the runtime directory';
      const then = u.kept
        ? `${kept}, and the record says it was stopped at the first read once the store can be written again`
        : 'nor could the stop be kept in the runtime directory, so once the store can be written again the record will say the agent ended unexpectedly (orphaned)';
      ctx.io.stderr.write(`Nothing could be written in the store (${u.why}), so agent ${id}'s record does not say it was stopped yet: ${then}.\n`);
    }
    return 0;
  },
});

/** What the stop did, from the transition it performed itself (never from a re-read that may see another generation). */
export function describeStop(report: StopReport): string {
  const { id, generation, state } = report;
  const ended = report.ended.length
    ? `; ended ${report.ended.slice(0, 5).map((p) => `pid ${p.pid} (${p.command})`).join(', ')}${report.ended.length > 5 ? ` and ${report.ended.length - 5} more` : ''}`
    : '';
  const gen = generation > 1 ? `generation ${generation} ` : '';
  switch (report.action) {
    case 'none':
      return `Agent ${id} is already ${state}${generation > 1 ? ` (generation ${generation})` : ''}.`;
    case 'cancelled-queued':
      return `Agent ${id} is ${state}: ${gen || 'it '}had not started yet.`;
    case 'ended-leftovers':
      return `Agent ${id} was already ${state}${generation > 1 ? ` (generation ${generation})` : ''}; its leftover processes were stopped${ended}.`;
    case 'ended-unreadable':
      return report.ended.length
        ? `Agent ${id}'s processes were stopped${ended}; its record is still unreadable (${report.unreadable ?? 'unknown reason'}) and was left as it is.`
        : `Agent ${id} had no process left to stop; its record is still unreadable (${report.unreadable ?? 'unknown reason'}) and was left as it is.`;
    case 'stopped':
      return generation > 1 ? `Agent ${id} is ${state}: generation ${generation} was stopped${ended}.` : `Agent ${id} is ${state}${ended ? ` (${ended.slice(2)})` : ''}.`;
  }
}

export default stopCommand;
