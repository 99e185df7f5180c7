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

/**
 * $1 is the nonce; the agent's argv follows. Ctrl-C gets a no-op trap (reset for the child, unlike an ignore) so it
 * reaches the agent without killing this shell. Once the agent exited, it is ignored: a trapped one cut the `wait`,
 * so a Ctrl-C (Ctrl-\\) typed as the agent ended closed the terminal before the worker read its tail (bug 174).
 */
export const DRAIN_WRAPPER =
  'n=$1; shift; trap : INT QUIT; "$@"; rc=$?; trap \'\' INT QUIT; ' +
  "trap 'kill $! 2>/dev/null; exit $rc' USR1; " +
  "printf '\\033]7777;%s\\007' \"$n\"; sleep 3 & wait; exit $rc";

export class DrainMarker {
  readonly nonce = randomBytes(12).toString('hex');
  readonly marker = `\x1b]7777;${this.nonce}\x07`;
  private readonly markerBytes = Buffer.from(this.marker, 'latin1');
  private carry: Buffer | undefined;
  private seen = false;

  get drained(): boolean {
    return this.seen;
  }

  wrap(command: string[]): { file: string; args: string[] } {
    return { file: '/bin/sh', args: ['-c', DRAIN_WRAPPER, 'paddock-agent', this.nonce, ...command] };
  }

  /**
   * Removes the marker from the stream (raw PTY bytes: the marker is ASCII);
   * holds back a possible partial marker at the end. Passes `data` through
   * untouched (no copy) when there is neither.
   */
  filter(data: Buffer): { bytes: Buffer; found: boolean } {
    if (this.seen) return { bytes: data, found: false };
    let all = this.carry ? Buffer.concat([this.carry, data]) : data;
    this.carry = undefined;
    const at = all.indexOf(this.markerBytes);
    if (at >= 0) {
      this.seen = true;
      return { bytes: Buffer.concat([all.subarray(0, at), all.subarray(at + this.markerBytes.length)]), found: true };
    }
    const esc = all.lastIndexOf(0x1b);
    if (esc >= 0 && all.length - esc < this.markerBytes.length && all.subarray(esc).equals(this.markerBytes.subarray(0, all.length - esc))) {
      this.carry = Buffer.from(all.subarray(esc));
      all = all.subarray(0, esc);
    }
    return { bytes: all, found: false };
  }

  /** Whatever was held back (at the very end of the stream). */
  end(): Buffer {
    const rest = this.carry ?? Buffer.alloc(0);
    this.carry = undefined;
    return rest;
  }
}
