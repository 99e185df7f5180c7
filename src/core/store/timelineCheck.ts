/**
 * A timeline line as `TimelineEntrySchema` accepts it: the hand-written check (fastCheck.ts) answers
 * for a valid one, zod (built on first use) refuses one and says why. Checked before every append
 * and on every read; held to the schema by test/unit/core/store/recordCheck.test.ts.
 */
import { accepted, int, isoTime, keys, obj, type Obj, oneOf, optional, str } from './fastCheck';
import { describeIssues } from './records';
import { LIFECYCLE_STATES, type TimelineEntry } from './schema';
import { storeSchemas } from './storeSchemas';

export const TIMELINE_KEYS = keys('at', 'generation', 'type', 'from', 'to', 'message');

const lifecycleState = (x: unknown) => oneOf(x, LIFECYCLE_STATES);
const timelineMessage = (x: unknown) => str(x, 2000);
function timelineEntry(v: unknown): Obj {
  const i = obj(v, TIMELINE_KEYS);
  isoTime(i.at);
  int(i.generation, 0);
  str(i.type, 64);
  optional(i, 'from', lifecycleState);
  optional(i, 'to', lifecycleState);
  optional(i, 'message', timelineMessage);
  return i;
}

/** The entry itself when the hand-written check passes it; undefined when zod must decide. */
export function checkTimelineEntry(value: unknown): TimelineEntry | undefined {
  return accepted(value, timelineEntry) as TimelineEntry | undefined;
}

/** The entry as the schema accepts it, or why not. */
export function timelineEntryOf(value: unknown): { ok: true; entry: TimelineEntry } | { ok: false; reason: string } {
  const fast = checkTimelineEntry(value);
  if (fast) return { ok: true, entry: fast };
  const parsed = storeSchemas().TimelineEntrySchema.safeParse(value);
  return parsed.success ? { ok: true, entry: parsed.data } : { ok: false, reason: describeIssues(parsed.error.issues) };
}
