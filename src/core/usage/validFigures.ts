/**
 * Each figure checked on its own against the record's schema before it is
 * recorded: one that does not fit (a fraction of a token, a negative cost, a
 * sum past the largest safe integer) becomes "unknown" (null) — no figure
 * rather than a guess — and never takes the agent's other figures with it,
 * as a rejected write of the whole `usage` would.
 */
import { checkUsage } from '../store/recordCheck';
import type { Usage } from '../store/schema';
import { storeSchemas } from '../store/storeSchemas';

type Figure = Exclude<keyof Usage, 'sampledAt'>;

/** `usage` with every figure its schema rejects set to null. */
export function validFigures(usage: Usage): Usage {
  // Figures that all fit, nearly always, pass the record's own fast check: zod's schemas are not built
  // for them (`paddock list` samples a thousand agents in a process that otherwise never needs zod).
  if (checkUsage(usage)) return { ...usage };
  const { UsageSchema } = storeSchemas();
  const out: Usage = { ...usage };
  const figures = (Object.keys(UsageSchema.shape) as (keyof Usage)[]).filter((k): k is Figure => k !== 'sampledAt');
  for (const figure of figures) {
    if (!UsageSchema.shape[figure].safeParse(out[figure]).success) out[figure] = null;
  }
  return out;
}
