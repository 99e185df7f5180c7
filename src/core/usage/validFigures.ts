/**
 * Each figure checked on its own against the record's schema before it is
 * recorded: one that does not fit (a fraction of a token, a negative cost, a
 * sum past the largest safe integer) becomes "unknown" (null) — no figure
 * rather than a guess — and never takes the agent's other figures with it,
 * as a rejected write of the whole `usage` would.
 */
import { UsageSchema, type Usage } from '../store/recordSchemas';

type Figure = Exclude<keyof Usage, 'sampledAt'>;

const FIGURES = Object.keys(UsageSchema.shape).filter((k): k is Figure => k !== 'sampledAt');

/** `usage` with every figure its schema rejects set to null. */
export function validFigures(usage: Usage): Usage {
  const out: Usage = { ...usage };
  for (const figure of FIGURES) {
    if (!UsageSchema.shape[figure].safeParse(out[figure]).success) out[figure] = null;
  }
  return out;
}
