/**
 * What processes cut short left in the store, cleared by the leading coordinator: job folders whose
 * create died before its record (each pass that listed them), and folders whose removal was cut
 * short (once, when this process first leads; Remove from List sweeps them too).
 */
import type { HeldLock } from '../coordinator/ownedLock';
import type { OperationContext } from '../operations/context';
import { sweepInterruptedCreates, sweepRemovalsCutShort } from '../operations/forget';
import type { JobEntry } from '../store';

export class StoreLeftovers {
  /** Job folders of the last listing whose create died before its record. */
  private interruptedCreates: string[] = [];
  /** Those found holding more than a create makes: logged once, left on disk. */
  private readonly kept = new Set<string>();
  private sweptRemovals = false;

  constructor(
    private readonly ctx: OperationContext,
    /** A job's operation lock if it is free; when a live creator holds it, none, and a pass comes back once it is let go. */
    private readonly takeOrWatch: (id: string) => Promise<HeldLock | undefined>,
  ) {}

  /** The store as the pass has just listed it. */
  noteListing(entries: readonly JobEntry[]): void {
    this.interruptedCreates = entries.flatMap((e) => (!e.ok && e.interruptedCreate ? [e.id] : []));
  }

  async sweep(): Promise<void> {
    await sweepInterruptedCreates(this.ctx, this.interruptedCreates, this.kept, this.takeOrWatch);
    if (this.sweptRemovals) return;
    this.sweptRemovals = true;
    await sweepRemovalsCutShort(this.ctx);
  }
}
