/**
 * Ctrl-C (or a closed terminal) while a command does something it must not leave half-done, or
 * leave running: the first interrupt is held and handed to the command (`onFirst`, and the abort
 * signal given to the work), which finishes or ends what it started and says so; a second ends the
 * CLI at once, as it would by default.
 */
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** The exit status of a command a person interrupted (128 + SIGINT), as shells report it. */
export const EXIT_INTERRUPTED = 130;

/** "Interrupted" for a Ctrl-C, else the signal's name. */
export function interruptWord(signal: NodeJS.Signals): string {
  return signal === 'SIGINT' ? 'Interrupted' : `Got ${signal}`;
}

export async function holdingInterrupts<T>(onFirst: (signal: NodeJS.Signals) => void, work: (abort: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const release = () => {
    for (const s of SIGNALS) {
      process.removeListener(s, first);
      process.removeListener(s, second);
    }
  };
  const second = (signal: NodeJS.Signals) => {
    release();
    process.kill(process.pid, signal);
  };
  const first = (signal: NodeJS.Signals) => {
    for (const s of SIGNALS) {
      process.removeListener(s, first);
      process.on(s, second);
    }
    onFirst(signal);
    controller.abort();
  };
  for (const s of SIGNALS) process.on(s, first);
  try {
    return await work(controller.signal);
  } finally {
    release();
  }
}
