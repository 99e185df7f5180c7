/**
 * Tasks with the same key run one after another, in the order they were
 * given; tasks with different keys run side by side. A read and a write of the
 * same file, begun in that order, then also end in that order, so what a
 * late-ending read saw can never be applied over what a write made after it.
 */
export class KeyedSequencer {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key) ?? Promise.resolve();
    // A failed task does not stop the ones after it: each caller gets its own result.
    const result = before.then(task, task);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    // The map holds only keys with work waiting or running.
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Keys with a task waiting or running (tests and diagnostics). */
  get busyKeys(): number {
    return this.tails.size;
  }
}
