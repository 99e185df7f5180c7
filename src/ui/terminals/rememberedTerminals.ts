/**
 * The terminals a window remembers across a reload (its workspace state, on disk): read back
 * validated, and which of them to attach again. An agent can be shown in several terminals at
 * once (a writable one and a read-only one, or two of each): each comes back, not only the first.
 * Until the window has restored them, the list it writes keeps those not back yet: a terminal
 * opened or closed before the restore (or a reload during it) must not make it forget the others.
 */
import * as z from '../../core/common/zod';

export interface RememberedTerminal {
  jobId: string;
  readOnly: boolean;
}

const RememberedSchema = z.object({ jobId: z.string().check(z.minLength(1), z.maxLength(200)), readOnly: z.boolean() });

/** The entries of a stored value that are remembered terminals (another version's or a damaged entry is skipped). */
export function readRemembered(stored: unknown): RememberedTerminal[] {
  if (!Array.isArray(stored)) return [];
  const out: RememberedTerminal[] = [];
  for (const entry of stored) {
    const parsed = RememberedSchema.safeParse(entry);
    if (parsed.success) out.push({ jobId: parsed.data.jobId, readOnly: parsed.data.readOnly });
  }
  return out;
}

/** The remembered terminals not open in this window yet: each open one stands for one remembered alike. */
export function stillToAttach(remembered: RememberedTerminal[], open: RememberedTerminal[]): RememberedTerminal[] {
  const unmatched = [...open];
  return remembered.filter((r) => {
    const i = unmatched.findIndex((o) => o.jobId === r.jobId && o.readOnly === r.readOnly);
    if (i < 0) return true;
    unmatched.splice(i, 1);
    return false;
  });
}
