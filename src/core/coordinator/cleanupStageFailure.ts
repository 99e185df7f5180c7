/** A failure of one cleanup stage: where, why, who was in the way, and whether only consent moves it on. */
import type { Holder } from '../store/schema';

export type Stage = 'terminating' | 'capturing' | 'removing';

/** A failure of one stage: where, why, and who was in the way. */
export class StageFailure extends Error {
  constructor(
    readonly stage: Stage,
    message: string,
    readonly holders: Holder[] = [],
    /** The cause is a process seen in /proc (part of the fingerprint). */
    readonly observed = false,
    /** Going on would lose something: only the person's consent moves it on. */
    readonly needsConsent = false,
  ) {
    super(message);
  }
}
