/**
 * The portable (ps/lsof) backend in a unit test: this process switched to it, and a `ps` of the
 * test's own ahead of the real one in PATH (slowed, counting its runs, failing once), both undone by
 * `restore`. And how long the event loop stood still while something ran.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export class PortablePs {
  /** The real `ps`; a test skips without one. */
  readonly real = ['/usr/bin/ps', '/bin/ps'].find((p) => fs.existsSync(p));
  private readonly saved = { PATH: process.env.PATH, backend: process.env.PADDOCK_PROCESS_BACKEND };

  constructor(private readonly dir: string) {}

  /** This process reads processes through `ps` from now on (what it reads once is read before any shim). */
  useBackend(): void {
    process.env.PADDOCK_PROCESS_BACKEND = 'portable';
  }

  /** A `ps` that runs `body` (sh) and then the real one with the same arguments, first in PATH. */
  shim(body: string): void {
    fs.writeFileSync(path.join(this.dir, 'ps'), `#!/bin/sh\n${body}\nexec ${this.real} "$@"\n`, { mode: 0o755 });
    process.env.PATH = `${this.dir}${path.delimiter}${this.saved.PATH}`;
  }

  restore(): void {
    process.env.PATH = this.saved.PATH;
    if (this.saved.backend === undefined) delete process.env.PADDOCK_PROCESS_BACKEND;
    else process.env.PADDOCK_PROCESS_BACKEND = this.saved.backend;
  }
}

/** Runs `fn` under a 10 ms timer: the longest the event loop went without running it, and how long `fn` took. */
export async function watchEventLoop<T>(fn: () => Promise<T>): Promise<{ result: T; longestGapMs: number; elapsedMs: number }> {
  const started = Date.now();
  let last = started;
  let longestGapMs = 0;
  const ticks = setInterval(() => {
    longestGapMs = Math.max(longestGapMs, Date.now() - last);
    last = Date.now();
  }, 10);
  try {
    const result = await fn();
    longestGapMs = Math.max(longestGapMs, Date.now() - last);
    return { result, longestGapMs, elapsedMs: Date.now() - started };
  } finally {
    clearInterval(ticks);
  }
}
