/**
 * At most N tasks at a time, the rest wait in order. Cleanup scans /proc
 * synchronously and runs several git processes; fifty at once would block the
 * event loop long enough to lose the store's short record locks. A waiter whose
 * signal aborts leaves the queue without ever running.
 */
export class Limiter {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly max: number) {}

  /** Tasks running now (tests and diagnostics). */
  get active(): number {
    return this.running;
  }

  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.enter(signal);
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  private enter(signal: AbortSignal | undefined): Promise<void> {
    signal?.throwIfAborted();
    if (this.running < this.max) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const at = this.waiting.indexOf(admit);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(signal!.reason);
      };
      // The slot is handed over as is: `running` stays the same.
      const admit = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(admit);
    });
  }
}

/** `fn` over every item, at most `limit` at a time; results in the items' order. */
export async function mapConcurrently<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < items.length; i = next++) results[i] = await fn(items[i]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
