/**
 * node-pty loses the tail of the output when the agent exits right after
 * writing (node-pty #72/#726/#85: once the slave side closes, unread data is
 * gone). A fixed linger is not enough when the worker's event loop is busy, so
 * the agent runs under a small shell that, after the agent exits, prints a
 * marker carrying a per-execution nonce and keeps the terminal open until the
 * worker has read up to that marker and answers with SIGUSR1 (or 3 s pass).
 * The marker is removed from the stream before anything sees it.
 */
import { randomBytes } from 'node:crypto';

/** $1 is the nonce; the agent's argv follows. Ctrl-C gets a no-op trap (reset for the child, unlike an ignore) so it reaches the agent without killing this shell. */
export const DRAIN_WRAPPER =
  'n=$1; shift; trap : INT QUIT; "$@"; rc=$?; ' +
  "trap 'kill $! 2>/dev/null; exit $rc' USR1; " +
  "printf '\\033]7777;%s\\007' \"$n\"; sleep 3 & wait; exit $rc";

export class DrainMarker {
  readonly nonce = randomBytes(12).toString('hex');
  readonly marker = `\x1b]7777;${this.nonce}\x07`;
  private carry = '';
  private seen = false;

  get drained(): boolean {
    return this.seen;
  }

  wrap(command: string[]): { file: string; args: string[] } {
    return { file: '/bin/sh', args: ['-c', DRAIN_WRAPPER, 'paddock-agent', this.nonce, ...command] };
  }

  /** Removes the marker from the stream; holds back a possible partial marker at the end. */
  filter(text: string): { text: string; found: boolean } {
    let all = this.carry + text;
    this.carry = '';
    let found = false;
    if (!this.seen) {
      const at = all.indexOf(this.marker);
      if (at >= 0) {
        all = all.slice(0, at) + all.slice(at + this.marker.length);
        this.seen = found = true;
      } else {
        const esc = all.lastIndexOf('\x1b');
        if (esc >= 0 && all.length - esc < this.marker.length && this.marker.startsWith(all.slice(esc))) {
          this.carry = all.slice(esc);
          all = all.slice(0, esc);
        }
      }
    }
    return { text: all, found };
  }

  /** Whatever was held back (at the very end of the stream). */
  end(): string {
    const rest = this.carry;
    this.carry = '';
    return rest;
  }
}
