/**
 * How much a viewer's socket may hold before the viewer stops getting output ("lagging"): about what it took in the
 * last second, at least `FLOOR_BYTES`, at most the high-water mark. A fixed 8 MiB let a viewer reading 5 KB/s queue
 * 8 MiB of a flood, which it then read for ~28 minutes, minutes behind the agent, and was dropped rather than
 * redrawn (bug 203); a fast viewer still keeps every byte of a burst, as before. tmux bounds its clients the same way
 * (by what their terminal can show, then it discards and redraws).
 */
import type { Socket } from 'node:net';

/**
 * Always allowed: more than a screen's redraw and any burst of interactive output. With the ~150-200 KB the kernel
 * holds for a Unix socket, a viewer reading 20 KB/s is at most ~17 s behind before it is redrawn.
 */
export const FLOOR_BYTES = 128 * 1024;
/** The pace is what the viewer took over at least this long. */
const WINDOW_MS = 1000;
/** Samples are taken at most this often (output comes in batches every few ms). */
const SAMPLE_MS = 100;

export class ViewerPace {
  /** Everything written to the socket, in `writableLength`'s units (a string counts its length). */
  private written = 0;
  private readonly samples: { at: number; taken: number }[] = [];

  constructor(
    private readonly socket: Socket,
    private readonly highWaterBytes: number,
  ) {}

  wrote(chunk: string | Buffer): void {
    this.written += chunk.length;
  }

  /** The socket holds more than the viewer takes in a second (or the high-water mark): no more output for it. */
  behind(): boolean {
    const queued = this.socket.writableLength;
    if (queued <= FLOOR_BYTES) return false;
    if (queued > this.highWaterBytes) return true;
    // What the OS took (a write under way counts once done: a lower bound).
    const taken = this.written - queued;
    const now = Date.now();
    const last = this.samples[this.samples.length - 1];
    if (!last || now - last.at >= SAMPLE_MS) this.samples.push({ at: now, taken });
    while (this.samples.length > 1 && now - this.samples[1].at >= WINDOW_MS) this.samples.shift();
    return queued > taken - this.samples[0].taken;
  }
}
