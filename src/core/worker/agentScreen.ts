/**
 * What the agent's terminal shows, and where it goes: every byte shown (the
 * agent's, setup's and Paddock's own lines) to the output log, the headless
 * mirror and the connected viewers, raw all the way. The agent's own output is
 * read for the drain marker first (drain.ts), and its last moment kept, so its
 * exit waits for the output to go quiet.
 */
import { Disposable } from '../common/lifecycle';
import type { OutputLog } from '../store';
import type { ControlServer } from './controlServer';
import { DrainMarker } from './drain';
import { ScreenMirror } from './mirror';
import { outputQuiet } from './ptyHost';

export class AgentScreen extends Disposable {
  /** The screen as a terminal would show it: viewers attach to it, the waiting detector reads it, the final screen keeps it. */
  readonly mirror: ScreenMirror;
  /** The marker that ends the agent's output (the spawn wraps its command with it). */
  readonly drain = new DrainMarker();
  private lastDataAt = 0;

  constructor(
    size: { cols: number; rows: number },
    private readonly output: OutputLog,
    private readonly viewers: Pick<ControlServer, 'broadcastOutput'>,
  ) {
    super();
    this.mirror = this._register(new ScreenMirror(size));
  }

  /** Shows bytes (or Paddock's own line): to the log, the mirror and the viewers. */
  write(data: Buffer | string): void {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    this.output.append(bytes);
    this.mirror.write(bytes);
    this.viewers.broadcastOutput(bytes);
  }

  /** The agent's output as it came: what is to be shown of it, and whether the drain marker came (all of it read). */
  fromAgent(data: Buffer | string): { bytes: Buffer; drained: boolean } {
    this.lastDataAt = Date.now();
    const { bytes, found } = this.drain.filter(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    return { bytes, drained: found };
  }

  /** After the agent's exit: once its output went quiet, what the drain still held is shown. */
  async endOfOutput(): Promise<void> {
    await outputQuiet(() => this.lastDataAt);
    const tail = this.drain.end();
    if (tail.length > 0) this.write(tail);
  }

  /** The visible screen as plain text, lines joined by \n. */
  text(): string {
    return this.mirror.visibleLines().join('\n');
  }
}
