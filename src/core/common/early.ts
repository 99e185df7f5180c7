/**
 * Steps begun before they are awaited, so independent reads (each often a git
 * process) run at once, without an unhandled rejection when the caller refuses
 * before it gets to them, and without leaving one running after a refusal.
 */

/** Starts a read-only step now and hands back its promise, marked handled: a refusal thrown before it is awaited leaves no unhandled rejection. */
export function startEarly<T>(read: Promise<T>): Promise<T> {
  read.catch(() => undefined);
  return read;
}

/** Runs `step`; when it throws, lets the reads begun early (`pending`) finish first, so a refusal leaves no git process of the operation running. */
export async function settlingOnError<T>(pending: readonly (Promise<unknown> | null | undefined)[], step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    await Promise.allSettled(pending.filter((p): p is Promise<unknown> => p != null));
    throw err;
  }
}

/**
 * Like Promise.all, but it throws the first failure only once every step has settled: no step is
 * still writing (a temporary file, a git object) when the caller's cleanup runs.
 */
export async function allSettledOrThrow<T extends readonly unknown[]>(work: T): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled = await Promise.allSettled(work);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as { -readonly [K in keyof T]: Awaited<T[K]> };
}

/** A promise's outcome, never a rejection: for work whose failures are handled one by one, after the rest is known. */
export function settle<T>(work: Promise<T>): Promise<PromiseSettledResult<T>> {
  return work.then(
    (value) => ({ status: 'fulfilled', value }),
    (reason: unknown) => ({ status: 'rejected', reason }),
  );
}
